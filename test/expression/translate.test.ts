import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { checkSyntax } from '../../src/expression/compile.js';
import { evaluateExpression } from '../../src/expression/evaluate.js';
import { JSONATA_FUNCTIONS } from '../../src/expression/functions.js';
import { ambiguousHyphens } from '../../src/expression/hyphens.js';
import { DEFAULT_LIMITS } from '../../src/expression/limits.js';
import { freeNames } from '../../src/expression/names.js';
import { translateContext } from '../../src/expression/translate.js';

/** input -> translated JSONata. Only code is translated; literals, backquotes, comments and `@$x` are not. */
const TRANSLATIONS: Array<[string, string]> = [
  ['@ctx.response.status', '$ctx.response.status'],
  ['@.parameters.id', '$ctx.parameters.id'],
  ['@ctx', '$ctx'],
  ['@ctx.a & @.b', '$ctx.a & $ctx.b'],
  ["'@ctx.x'", "'@ctx.x'"],
  ['"say @. here"', '"say @. here"'],
  ['"escaped \\" @ctx"', '"escaped \\" @ctx"'],
  ['`@ctx odd name`', '`@ctx odd name`'],
  ['/* @ctx */ @ctx.a', '/* @ctx */ $ctx.a'],
  ['Account.Order@$o.Product', 'Account.Order@$o.Product'],
  ['@ctxual', '@ctxual'],
  ["$lookup(@ctx.response.headers, 'retry-after')", "$lookup($ctx.response.headers, 'retry-after')"],
  ['@ctx.response.body."@odata.nextLink"', '$ctx.response.body."@odata.nextLink"'],
  // Script calls: module and function joined into one variable, so arguments see the input.
  ['$utils.coalesce(a, b)', '$utils\u00b7coalesce(a, b)'],
  ['$u.now ()', '$u\u00b7now ()'],
  ['$item.id', '$item.id'],
  ['"$utils.x()"', '"$utils.x()"'],
  ['@ctx.f()', '$ctx.f()'],
  ['($o := {"f": function($v) { $v * 2 }}; $o.f(3))', '($o := {"f": function($v) { $v * 2 }}; $o.f(3))'],
  // In @ctx paths a hyphen between name characters is part of the name: the step is backquoted.
  ['@ctx.queries.current-record', '$ctx.queries.`current-record`'],
  ['@ctx.datasources.task-lists.id', '$ctx.datasources.`task-lists`.id'],
  ['@.parameters.X-opsPrimaryKey', '$ctx.parameters.`X-opsPrimaryKey`'],
  ['@ctx.a-b-c', '$ctx.`a-b-c`'],
  ['@ctx.datasources.task-lists[0].list-name', '$ctx.datasources.`task-lists`[0].`list-name`'],
  ['@ctx.rows[id-1 = 0].x-y', '$ctx.rows[id-1 = 0].`x-y`'],
  ['@ctx.a.`b-c`.d-e', '$ctx.a.`b-c`.`d-e`'],
  // Spaces, or anything but a name after the hyphen, keep JSONata's subtraction; so does every
  // path that is not @ctx's.
  ['@ctx.x - y', '$ctx.x - y'],
  ['@ctx.x -1', '$ctx.x -1'],
  ['@ctx.x-$y', '$ctx.x-$y'],
  ['@ctx.x- 1', '$ctx.x- 1'],
  ['(@ctx.a)-b', '($ctx.a)-b'],
  ['$.a-b', '$.a-b'],
  ['a-b', 'a-b'],
  ['@ctx.a + b.c-d', '$ctx.a + b.c-d'],
  ['[@ctx.a]-b', '[$ctx.a]-b'],
  ['"@ctx.a-b"', '"@ctx.a-b"'],
];

describe('translateContext', () => {
  test.each(TRANSLATIONS)('%s', (input, output) => {
    expect(translateContext(input).text).toBe(output);
  });

  test('maps translated positions back to the source', () => {
    const source = '@.a + @ctx.b + x';
    const t = translateContext(source);
    expect(t.text).toBe('$ctx.a + $ctx.b + x');
    expect(source[t.sourceIndex(t.text.lastIndexOf('x'))]).toBe('x');
    expect(source[t.sourceIndex(t.text.lastIndexOf('+'))]).toBe('+');
  });

  test('maps positions inside and after backquoted steps back to the source', () => {
    const source = '@ctx.datasources.task-lists.id + @.a-b';
    const t = translateContext(source);
    expect(t.text).toBe('$ctx.datasources.`task-lists`.id + $ctx.`a-b`');
    for (const part of ['task-lists', 'id', '+', 'a-b'])
      expect(t.sourceIndex(t.text.lastIndexOf(part))).toBe(source.lastIndexOf(part));
    expect(t.hyphenatedSteps).toEqual([
      { name: 'task-lists', index: source.indexOf('task-lists') },
      { name: 'a-b', index: source.indexOf('a-b') },
    ]);
  });

  test('text without @ is never changed (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const input = s.replaceAll('@', '');
        const t = translateContext(input);
        expect(t.text).toBe(input);
        expect(t.sourceIndex(input.length)).toBe(input.length);
      }),
    );
  });
});

/** expression, input ($), context (@ctx), expected result or error code. */
const EVALUATIONS: Array<{ expr: string; input?: unknown; ctx?: unknown; result?: unknown; error?: string }> =
  [
    { expr: '@ctx.response.status = 403', ctx: { response: { status: 403 } }, result: true },
    { expr: '@.parameters.id', ctx: { parameters: { id: 'a1' } }, result: 'a1' },
    { expr: '$count(items)', input: { items: [1, 2, 3] }, result: 3 },
    { expr: "'@ctx'", result: '@ctx' },
    { expr: '$number(@ctx.parameters.page) + 1', ctx: { parameters: { page: '4' } }, result: 5 },
    { expr: '$.value', input: { value: [{ id: 1 }] }, result: [{ id: 1 }] },
    { expr: 'items.id', input: { items: [{ id: 1 }, { id: 2 }] }, result: [1, 2] },
    {
      expr: '@ctx.response.body.`@odata.nextLink`',
      ctx: { response: { body: { '@odata.nextLink': 'n' } } },
      result: 'n',
    },
    { expr: 'Order@$o.$o.id', input: { Order: [{ id: 7 }] }, result: 7 },
    { expr: '$string(1) & @ctx.missing', ctx: {}, result: '1' },
    {
      expr: '[$isTempId("_tmp_1"), $isTempId("srv-1"), $isTempId(@ctx.x)]',
      ctx: { x: 5 },
      result: [true, false, false],
    },
    {
      expr: '[@ctx.queries.current-record.id, @.parameters.X-opsPrimaryKey, @ctx.datasources.task-lists[1].list-name]',
      ctx: {
        queries: { 'current-record': { id: 'r1' } },
        parameters: { 'X-opsPrimaryKey': 'k', X: 10, opsPrimaryKey: 3 },
        datasources: { 'task-lists': [{ 'list-name': 'a' }, { 'list-name': 'b' }] },
      },
      result: ['r1', 'k', 'b'],
    },
    { expr: '@ctx.x - y', input: { y: 2 }, ctx: { x: 5 }, result: 3 },
    { expr: '$.a-b', input: { a: 5, b: 2, 'a-b': 'name' }, result: 3 },
    { expr: '@ctx.a-b +', error: 'EXPRESSION_SYNTAX' },
    { expr: '$number("x")', error: 'EXPRESSION_EVALUATION' },
    { expr: '($f := function($n) { 1 + $f($n) }; $f(1))', error: 'EXPRESSION_EVALUATION' },
    { expr: '[1..2000000]', error: 'EXPRESSION_EVALUATION' },
    { expr: '@ctx.a +', error: 'EXPRESSION_SYNTAX' },
  ];

describe('evaluateExpression', () => {
  test.each(EVALUATIONS)('$expr', async ({ expr, input, ctx, result, error }) => {
    const run = evaluateExpression(expr, input, ctx ?? {});
    if (error) await expect(run).rejects.toMatchObject({ code: error });
    else expect(await run).toEqual(result);
  });

  test('guardrails stop a runaway expression with a JSONata code', async () => {
    const limits = {
      limits: { ...DEFAULT_LIMITS, timeoutMs: 50, maxDepth: 500, maxSequence: 1000 },
      functions: {},
    };
    // Not a tail call, so the stack grows until the depth limit (with time to get there on a
    // loaded machine: the timeout is not what this checks).
    const deep = { ...limits, limits: { ...limits.limits, timeoutMs: 60_000 } };
    await expect(
      evaluateExpression('($f := function($n) { 1 + $f($n) }; $f(1))', null, {}, deep),
    ).rejects.toMatchObject({
      code: 'EXPRESSION_EVALUATION',
      jsonataCode: 'D1011',
    });
    // A tail call loops in constant stack until the timeout.
    await expect(
      evaluateExpression('($f := function() { $f() }; $f())', null, {}, limits),
    ).rejects.toMatchObject({
      jsonataCode: 'D1012',
    });
    await expect(
      evaluateExpression(
        '[1..10] ~> $map(function($v) { [1..10] })',
        null,
        {},
        { limits: { ...DEFAULT_LIMITS, timeoutMs: 1000, maxSequence: 5 }, functions: {} },
      ),
    ).rejects.toMatchObject({ jsonataCode: 'D2015' });
  });

  test('checkSyntax reports the position of the failure in the source', () => {
    expect(checkSyntax('@.a > > 3')).toMatchObject({ jsonataCode: 'S0211', index: 6 });
    expect(checkSyntax('@ctx.a + 1')).toBeUndefined();
    // Past a backquoted step: the position is the source's.
    expect(checkSyntax('@ctx.a-b > > 3')).toMatchObject({ jsonataCode: 'S0211', index: 11 });
  });
});

describe('names an expression uses', () => {
  test('every name in the built-in list is a JSONata function', async () => {
    for (const name of JSONATA_FUNCTIONS) {
      expect(await evaluateExpression(`$${name}`, null, {}), name).toBeDefined();
    }
    expect(await evaluateExpression('$nowz', null, {})).toBeUndefined();
  });

  test('free names leave out what the expression binds; positions point at the $', () => {
    const source =
      '($x := 1; $map(a, function($v, $i) { $v + $x + $y }) ~> $z; b@$o#$n.($o + $n + $w()); c[x > 0]#$k.$k)';
    expect(freeNames(source).map((n) => [n.name, n.called, source.slice(n.index, n.index + 2)])).toEqual([
      ['map', true, '$m'],
      ['y', false, '$y'],
      ['z', false, '$z'],
      ['w', true, '$w'],
    ]);
  });
});

describe('hyphens that read one way and may be meant the other', () => {
  test('are found with where the word starts and how to write it', () => {
    const source = '[$.x-total-count, @ctx.parameters.page-1, @ctx.a-b, n-1, a - b, `c-d`, @ctx.x - 1]';
    expect(ambiguousHyphens(source)).toEqual([
      {
        index: source.indexOf('x-total'),
        message:
          "'x-total-count' is JSONata's subtraction (x minus total minus count): outside @ctx paths a hyphen is an operator; for a field named 'x-total-count' write it backquoted (`x-total-count`), for a subtraction write spaces around the hyphen",
      },
      {
        index: source.indexOf('page-1'),
        message:
          "'page-1' in an @ctx path is read as one name (in @ctx paths hyphens are part of names); for a subtraction write spaces around the hyphen (page - 1), for the name write it backquoted (`page-1`)",
      },
    ]);
    expect(ambiguousHyphens('a - b')).toEqual([]);
    expect(ambiguousHyphens('a-')).toEqual([]);
  });
});
