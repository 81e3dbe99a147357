import { describe, expect, test } from 'vitest';
import type * as Compile from '../../src/expression/compile.js';
import { checkSyntax } from '../../src/expression/compile.js';
import type * as Evaluate from '../../src/expression/evaluate.js';
import { evaluateExpression } from '../../src/expression/evaluate.js';
import { DEFAULT_LIMITS } from '../../src/expression/limits.js';
import { freeNames } from '../../src/expression/names.js';
import { MAX_EXPRESSION_NESTING, tooDeepAt } from '../../src/expression/nesting.js';

const evaluate = (expr: string, input: unknown = null) => evaluateExpression(expr, input, {});

describe('regular expressions run in linear time', () => {
  // Catastrophic for a backtracking engine: V8 would not finish these before the test timeout
  // (30 characters already take seconds; each one more doubles it), and nothing can interrupt it.
  const hostile = `${'a'.repeat(50_000)}!`;

  test.each([
    ['$match($, /^(a+)+$/)', undefined],
    ['$contains($, /^(a+)+$/)', false],
    ['$count($split($, /(a|aa)+$/))', 1],
    ['$replace($, /^(a|a?)+$/, "x") = $', true],
  ])('%s finishes', async (expr, expected) => {
    expect(await evaluate(expr, hostile)).toEqual(expected);
  });

  test('regular expressions given to $eval are linear too', async () => {
    expect(await evaluate('$eval("$contains($, /^(a+)+$/)", $)', hostile)).toBe(false);
  });

  test('matches keep JavaScript semantics: index in UTF-16 units, groups, unmatched groups, flags', async () => {
    expect(await evaluate('$match("x😀ab-AB", /(a)(z)?b/i)')).toEqual([
      { match: 'ab', index: 3, groups: ['a', undefined] },
      { match: 'AB', index: 6, groups: ['A', undefined] },
    ]);
    expect(await evaluate('$replace("2024-05-06", /(\\d+)-(\\d+)-(\\d+)/, "$3.$2.$1")')).toBe('06.05.2024');
    expect(await evaluate('$split("a1b22c", /\\d+/)')).toEqual(['a', 'b', 'c']);
    expect(await evaluate('$match("one\\ntwo", /^t\\w+$/m).match')).toBe('two');
    expect(await evaluate('$contains("path/to", /h\\/t/)')).toBe(true);
    expect(await evaluate('$match("price: 42", /(?<=price: )\\d+/).match')).toBe('42');
  });

  test('lookahead and backreferences are refused when the expression compiles, at the regular expression', () => {
    const lookahead = '$match(@ctx.s, /a(?=b)/)';
    expect(checkSyntax(lookahead)).toMatchObject({
      code: 'EXPRESSION_SYNTAX',
      index: lookahead.indexOf('/'),
    });
    const backreference = '$replace($, /(a)\\1/i, "")';
    expect(checkSyntax(backreference)).toMatchObject({
      code: 'EXPRESSION_SYNTAX',
      index: backreference.indexOf('/'),
    });
    expect(checkSyntax(backreference)?.message).toMatch(/linear time/);
  });
});

describe('nesting depth', () => {
  test('5,000 nested brackets are EXPRESSION_TOO_DEEP at the first bracket past the limit', async () => {
    for (const [open, close] of [
      ['(', ')'],
      ['[', ']'],
      ['{"a":', '}'],
      ['$string(', ')'],
    ] as const) {
      const source = `${open.repeat(5000)}1${close.repeat(5000)}`;
      expect(checkSyntax(source), open).toMatchObject({
        code: 'EXPRESSION_TOO_DEEP',
        // The bracket of repetition MAX + 1 (the bracket is the last `(`/`[`/`{` of `open`).
        index: MAX_EXPRESSION_NESTING * open.length + open.search(/[([{][^([{]*$/),
      });
      await expect(evaluate(source)).rejects.toMatchObject({ code: 'EXPRESSION_TOO_DEEP' });
    }
  });

  test('long operator chains that overflow the parser are EXPRESSION_TOO_DEEP too', async () => {
    for (const source of [Array(20_000).fill('a').join('.'), `${'-'.repeat(20_000)}1`]) {
      expect(checkSyntax(source)).toMatchObject({ code: 'EXPRESSION_TOO_DEEP' });
    }
  });

  test('the depth scan skips strings, names and comments, and is iterative', () => {
    expect(tooDeepAt('"((((" & `[[[` & /* {{{ */ ((1))', 3)).toBeUndefined();
    expect(tooDeepAt('"\\"((" & ((((1))))', 3)).toBe(12);
    // A million brackets: a recursive scan would overflow long before.
    expect(tooDeepAt('('.repeat(1_000_000))).toBe(MAX_EXPRESSION_NESTING);
  });

  test('names of an expression nested as deep as it may be are found without recursion', () => {
    const source = `${'('.repeat(MAX_EXPRESSION_NESTING)}$y${')'.repeat(MAX_EXPRESSION_NESTING)}`;
    expect(freeNames(source).map((n) => n.name)).toEqual(['y']);
  });
});

describe('texts that grow without bound', () => {
  const limited = { limits: { ...DEFAULT_LIMITS, maxStringLength: 1000 }, functions: {} };

  test.each([
    // JSONata's $pad builds the padding as an array, then $length spreads the text into one.
    ['$pad("x", 600000000)', DEFAULT_LIMITS.maxStringLength],
    ['$length($pad("x", 300000000))', DEFAULT_LIMITS.maxStringLength],
  ])('%s is a coded limit error, not a crash of the process', async (expr) => {
    await expect(evaluate(expr)).rejects.toMatchObject({
      code: 'EXPRESSION_EVALUATION',
      limit: 'string-length',
    });
  });

  test('doubling a text in a loop stops at the limit of the result, or at V8 with a coded error', async () => {
    const doubling = '($f := function($s, $n) { $n = 0 ? $s : $f($s & $s, $n - 1) }; $f("ab", 40))';
    await expect(evaluate(doubling)).rejects.toMatchObject({
      code: 'EXPRESSION_EVALUATION',
      limit: 'string-length',
    });
    // Under V8's own limit the expression's result is checked against maxStringLength.
    const grows = '($f := function($s, $n) { $n = 0 ? $s : $f($s & $s, $n - 1) }; $f("ab", 10))';
    await expect(evaluateExpression(grows, null, {}, limited)).rejects.toMatchObject({
      limit: 'string-length',
    });
  });

  test('every JSONata function refuses texts over the limit; shorter ones work as before', async () => {
    const long = 'a'.repeat(1001);
    for (const expr of ['$length($)', '$substring($, 1)', '$split($, "")', '$uppercase($)']) {
      await expect(evaluateExpression(expr, long, {}, limited), expr).rejects.toMatchObject({
        limit: 'string-length',
      });
    }
    expect(await evaluateExpression('$length($)', 'a'.repeat(1000), {}, limited)).toBe(1000);
    expect(await evaluateExpression('$pad("x", -3, "#")', null, {}, limited)).toBe('##x');
  });
});

describe('results that are no data', () => {
  test.each(['/a++/', '/a**/', '/a{2}{2}/'])(
    'a regular expression JavaScript refuses (%s) is EXPRESSION_SYNTAX at its slash, not a crash',
    (regex) => {
      const failure = checkSyntax(`$match(s, ${regex})`, DEFAULT_LIMITS);
      expect(failure).toMatchObject({ code: 'EXPRESSION_SYNTAX', index: 10 });
      expect(failure?.message).toMatch(/^not a valid regular expression: /);
    },
  );

  test('a function in a result is dropped, as JSON drops functions', async () => {
    expect(await evaluate('{"id": "1", "f": function($x){ $x }}')).toEqual({ id: '1' });
    expect(await evaluate('function($x){ $x }')).toBeUndefined();
    expect(await evaluate('[1, function($x){ $x }]')).toEqual([1, undefined]);
  });

  test('data a recursive function nests deeper than a response may: EXPRESSION_EVALUATION (depth)', async () => {
    const deep = '($f := function($n, $acc){ $n = 0 ? $acc : $f($n - 1, {"a": $acc}) }; $f(20000, 1))';
    await expect(evaluate(deep)).rejects.toMatchObject({ code: 'EXPRESSION_EVALUATION', limit: 'depth' });
    // As deep as a response may be still works.
    const ok = '($f := function($n, $acc){ $n = 0 ? $acc : $f($n - 1, {"a": $acc}) }; $f(900, 1))';
    let value = (await evaluate(ok)) as { a?: unknown };
    let depth = 0;
    while (typeof value === 'object') {
      value = value.a as { a?: unknown };
      depth++;
    }
    expect(depth).toBe(900);
  });
});

// The patch is applied when restfn is built (scripts/dependency-patches.mjs), to the copy of JSONata
// the library loads from dist/vendor and to the CLI bundle, so these run against the built library.
describe('sequence and timeout guardrails (jsonata patched: patches/jsonata+2.2.2.patch)', async () => {
  const { compileExpression } = (await import('../../dist/expression/compile.js')) as typeof Compile;
  const { evaluateExpression } = (await import('../../dist/expression/evaluate.js')) as typeof Evaluate;
  const limits = (overrides: Partial<typeof DEFAULT_LIMITS>) => ({
    limits: { ...DEFAULT_LIMITS, ...overrides },
    functions: {},
  });

  test('the patch is applied: every sequence of a compiled expression shares one bounded push', async () => {
    // Unpatched, JSONata gives each sequence a fresh push function, which makes V8 pretenure the
    // short-lived sequences (many full garbage collections: docs/decisions.md, issue 11).
    const expression = compileExpression('items.id', DEFAULT_LIMITS);
    const input = { items: [{ id: 1 }, { id: 2 }] };
    const [a, b] = [await expression.evaluate(input), await expression.evaluate(input)];
    expect(Object.hasOwn(a, 'push')).toBe(true);
    expect(a.push).toBe(b.push);
    expect(a.push).not.toBe(Array.prototype.push);
  });

  test('a sequence built step by step stops at maxSequence, each part under it', async () => {
    // Each range or array (10 entries) is under the limit; the flattened path result (100) is not.
    const options = limits({ maxSequence: 50 });
    const input = { a: Array.from({ length: 10 }, () => ({ b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })) };
    for (const expr of ['[1..10].([1..10])', 'a.b']) {
      await expect(evaluateExpression(expr, input, {}, options), expr).rejects.toMatchObject({
        code: 'EXPRESSION_EVALUATION',
        jsonataCode: 'D2015',
      });
    }
    expect(await evaluateExpression('[1..5].([1..10])', null, {}, options)).toHaveLength(50);
  });

  test('a loop of a few nodes per round still stops at the timeout, the clock read every 8th node', async () => {
    const started = Date.now();
    await expect(
      evaluateExpression('($f := function($n) { $f($n + 1) }; $f(0))', null, {}, limits({ timeoutMs: 200 })),
    ).rejects.toMatchObject({ jsonataCode: 'D1012' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });
});
