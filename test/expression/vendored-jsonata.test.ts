import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type Jsonata from 'jsonata';
import { describe, expect, test } from 'vitest';

// restfn's copy of JSONata (dist/vendor/jsonata.cjs: the package with patches/jsonata+*.patch
// applied by the build) must answer as the package does. The patches change how it runs (one
// bounded push function, the clock read every 8th node, the hooks looked up once per evaluation),
// never what it gives: every expression here, over frames, lambdas, closures, recursion and
// `$eval`, gives the same value or the same error code in both, with restfn's guardrails set.
const require = createRequire(import.meta.url);
const vendored = require(
  fileURLToPath(new URL('../../dist/vendor/jsonata.cjs', import.meta.url)),
) as typeof Jsonata;
const stock = require('jsonata') as typeof Jsonata;
const GUARDRAILS = { timeout: 2000, stack: 500, sequence: 1_000_000 } as unknown as Jsonata.JsonataOptions;

const DATA = {
  items: Array.from({ length: 12 }, (_, i) => ({
    id: i,
    name: `Thing ${i}`,
    tags: i % 3 === 0 ? ['a', 'b'] : ['c'],
    price: i * 1.5,
    owner: { name: i % 2 ? 'ann' : 'bob' },
  })),
  nested: [[1, 2], [3, [4, 5]], []],
  text: 'The quick brown fox',
};

const EXPRESSIONS = [
  'items[id > 6].{"id": id, "total": id * 2}',
  'items.name',
  'items[0]',
  'items[-1].tags',
  'items[tags = "a"].id',
  'items{owner.name: $sum(price)}',
  'items^(>price)[[0..2]].name',
  '$count(items[price > 3])',
  'items.(id % 2 = 0 ? "even" : "odd")',
  '$map(items, function($v, $i) { $v.id * $i })',
  '$filter(items, function($v) { $v.owner.name = "ann" }).id',
  '$reduce(items.price, function($a, $b) { $a + $b }, 0)',
  '($f := function($n) { $n <= 1 ? 1 : $n * $f($n - 1) }; $f(10))',
  '($add := function($x) { function($y) { $x + $y } }; $add(3)(4))',
  '($twice := function($f, $x) { $f($f($x)) }; $twice(function($n) { $n * 3 }, 2))',
  '$eval("items[id < 3].name")',
  '$eval("$ + 1", 41)',
  'items@$i#$j[$j < 2].{"name": $i.name, "at": $j}',
  'items.owner.%.id',
  '$sort(items, function($l, $r) { $l.price < $r.price }).id',
  '$each(items[0], function($v, $k) { $k })',
  '$sift(items[0], function($v) { $type($v) = "number" })',
  '$ ~> |items|{"seen": true}, ["tags"]|',
  'nested',
  'nested[1][1]',
  '$split(text, " ")[$length($) > 3]',
  '$replace(text, /o(\\w)/, "0$1")',
  '$match(text, /qu(i)ck/).groups',
  '**.name[0]',
  'items.*.name',
  '$zip([1,2,3], ["a","b","c"])',
  '$string({"a": [1, 2.5, null]})',
  '$keys(items[0])',
  '$lookup(items, "id")',
  '$spread(items[0].owner)',
  '$merge([{"a": 1}, {"b": 2}])',
  '$distinct(items.tags)',
  '$single(items, function($v) { $v.id = 5 }).name',
  'items[id = 99].name',
  '$number("x")',
  'undefinedname.x',
  '($x := 1; ($x := 2); $x)',
];

const run = async (lib: typeof Jsonata, source: string, input: unknown = DATA) => {
  try {
    // As data (JSON): a sequence's own `push` is one shared function in the copy, a closure each in
    // the package.
    const value = await lib(source, GUARDRAILS).evaluate(input);
    return { value: value === undefined ? undefined : JSON.parse(JSON.stringify(value)) };
  } catch (error) {
    return { code: (error as { code?: string }).code ?? String(error) };
  }
};

describe('restfn JSONata (patched copy)', () => {
  test.each(EXPRESSIONS)('%s gives what the package gives', async (source) => {
    const [ours, theirs] = await Promise.all([run(vendored, source), run(stock, source)]);
    expect(ours).toEqual(theirs);
  });

  test('its guardrails still stop runaway evaluations with their codes', async () => {
    // Deeper than the stack limit: D1011; an endless loop: D1012 (the clock read every 8th node).
    expect(await run(vendored, '($f := function($n) { $f($n + 1) + 1 }; $f(0))')).toEqual({ code: 'D1011' });
    const timed = vendored('($f := function($n) { $n > 1e9 ? $n : $f($n + 1) }; $f(0))', {
      timeout: 50,
      stack: 1_000_000_000,
    } as unknown as Jsonata.JsonataOptions);
    await expect(timed.evaluate({})).rejects.toMatchObject({ code: 'D1012' });
    expect(await run(vendored, '[1..2000000]')).toEqual({ code: 'D2015' });
  });

  test('its hooks are called as the package calls them, with hooks bound after compiling', async () => {
    const counts = async (lib: typeof Jsonata) => {
      const seen = { entry: 0, exit: 0, frames: 0 };
      const expression = lib('$map(items, function($v) { $v.id + 1 })');
      const hook = (name: 'entry' | 'exit' | 'frames') => () => {
        seen[name]++;
      };
      expression.assign(Symbol.for('jsonata.__evaluate_entry') as unknown as string, hook('entry'));
      expression.assign(Symbol.for('jsonata.__evaluate_exit') as unknown as string, hook('exit'));
      expression.assign(Symbol.for('jsonata.__createFrame_push') as unknown as string, hook('frames'));
      await expression.evaluate(DATA);
      return seen;
    };
    const ours = await counts(vendored);
    expect(ours).toEqual(await counts(stock));
    expect(ours.entry).toBeGreaterThan(12);
    expect(ours.frames).toBeGreaterThanOrEqual(12);
  });
});
