import { afterEach, describe, expect, test, vi } from 'vitest';
import { compileForEvaluation } from '../../src/expression/compile.js';
import { ExpressionError } from '../../src/expression/errors.js';
import { evaluateExpression, evaluate as evaluatePublic } from '../../src/expression/evaluate.js';
import { DEFAULT_LIMITS } from '../../src/expression/limits.js';

const evaluate = (expr: string, input: unknown = null, functions: Record<string, unknown> = {}) =>
  evaluateExpression(expr, input, {}, { limits: DEFAULT_LIMITS, functions });

describe("JSONata's built-in functions are JSONata's, guardrail and all", () => {
  test('partial application reads the parameters of the function itself', async () => {
    expect(await evaluate('$substring(?, 0, 2)("hello")')).toBe('he');
    expect(await evaluate('($firstn := $substring(?, 0, ?); $firstn(?, 3)("hello"))')).toBe('hel');
    expect(await evaluate('$map(["ab", "cd"], $substring(?, 1))')).toEqual(['b', 'd']);
  });

  test('higher-order functions read the arity of the function they are given', async () => {
    // $reduce needs a function of two parameters; $map passes the index to one that takes it.
    expect(await evaluate('$reduce([[1], [2, 3]], $append)')).toEqual([1, 2, 3]);
    expect(await evaluate('$map([1.5, 2.5, 3.55], $round)')).toEqual([2, 2.5, 3.55]);
    expect(await evaluate('$map(["a", "b"], $string)')).toEqual(['a', 'b']);
  });

  test('texts past maxStringLength are still refused, partial application included', async () => {
    const limits = { ...DEFAULT_LIMITS, maxStringLength: 10 };
    const refused = (expr: string) =>
      evaluateExpression(expr, 'x'.repeat(11), {}, { limits, functions: {} }).then(
        () => undefined,
        (error: { code: string; limit: string }) => [error.code, error.limit],
      );
    for (const expr of ['$length($)', '$substring(?, 0, 2)($)', '$map([$], $uppercase)', '$pad("a", 11)'])
      expect(await refused(expr), expr).toEqual(['EXPRESSION_EVALUATION', 'string-length']);
    expect(await evaluateExpression('$length($)', 'x'.repeat(10), {}, { limits, functions: {} })).toBe(10);
  });
});

describe('$now() and $millis() are the instant of each evaluation', () => {
  afterEach(() => vi.useRealTimers());

  test('two evaluations at different moments give different instants; one evaluation, one instant', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2024, 4, 6, 10, 0, 0) });
    // The clock moves inside the evaluation: `$tick()` advances it by a second (within the
    // evaluation timeout, which reads the same clock).
    const tick = () => {
      vi.setSystemTime(Date.now() + 1_000);
      return true;
    };
    const expr = '[$now(), $millis(), $tick(), $now(), $millis()]';
    const first = (await evaluate(expr, null, { tick })) as unknown[];
    expect(first).toEqual([
      '2024-05-06T10:00:00.000Z',
      Date.UTC(2024, 4, 6, 10, 0, 0),
      true,
      '2024-05-06T10:00:00.000Z',
      Date.UTC(2024, 4, 6, 10, 0, 0),
    ]);
    expect(await evaluate('$now() = $now() and $millis() = $millis()')).toBe(true);
    // In a text given to $eval, and in a function the expression defines, too.
    expect(await evaluate('$eval("[$millis(), $tick(), $millis()]")', null, { tick })).toEqual([
      Date.UTC(2024, 4, 6, 10, 0, 1),
      true,
      Date.UTC(2024, 4, 6, 10, 0, 1),
    ]);
    expect(await evaluate('($f := function() { $millis() }; [$f(), $tick(), $f()])', null, { tick })).toEqual(
      [Date.UTC(2024, 4, 6, 10, 0, 2), true, Date.UTC(2024, 4, 6, 10, 0, 2)],
    );
    vi.setSystemTime(Date.UTC(2024, 4, 6, 11, 30, 0));
    expect(await evaluate('[$now(), $millis(), $now("[H01]:[m01]")]')).toEqual([
      '2024-05-06T11:30:00.000Z',
      Date.UTC(2024, 4, 6, 11, 30, 0),
      '11:30',
    ]);
  });

  test('concurrent evaluations of one expression keep their own instants', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000 });
    // `$wait()` holds its evaluation until released: the second one starts while the first waits.
    const waiting: Array<() => void> = [];
    const wait = () => new Promise<boolean>((resolve) => waiting.push(() => resolve(true)));
    const expr = '[$millis(), $wait(), $millis()]';
    const first = evaluate(expr, null, { wait });
    await vi.waitFor(() => expect(waiting).toHaveLength(1));
    vi.setSystemTime(2_000);
    const second = evaluate(expr, null, { wait });
    await vi.waitFor(() => expect(waiting).toHaveLength(2));
    for (const release of waiting) release();
    expect(await first).toEqual([1_000, true, 1_000]);
    expect(await second).toEqual([2_000, true, 2_000]);
  });
});

describe('functions restfn adds', () => {
  test('$uuid() gives a new random UUID (version 4) at each call', async () => {
    const [a, b] = (await evaluate('[$uuid(), $uuid()]')) as string[];
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
  });
});

describe('evaluate, as the package exports it', () => {
  const evaluate = evaluatePublic;
  test('takes JSONata as outputTransform does, @ctx from `context`, `$name` from `bindings`', async () => {
    const input = {
      items: [
        { id: 1, price: 5 },
        { id: 2, price: 1 },
      ],
    };
    const context = { parameters: { min: 3, 'X-opsPrimaryKey': 'k' } };
    expect(await evaluate('=items[price > @ctx.parameters.min].id', input, { context })).toBe(1);
    expect(await evaluate('  =items[price > @.parameters.min].id', input, { context })).toBe(1);
    expect(await evaluate('items[price > $min].id', input, { bindings: { min: 0 } })).toEqual([1, 2]);
    expect(await evaluate('@ctx.parameters.X-opsPrimaryKey', null, { context })).toBe('k');
    expect(await evaluate('$double(3)', null, { bindings: { double: (n: number) => n * 2 } })).toBe(6);
    expect(await evaluate('nothing', input)).toBeUndefined();
  });

  test('fails with ExpressionError and its codes', async () => {
    await expect(evaluate('=$number("x")')).rejects.toMatchObject({
      name: 'ExpressionError',
      code: 'EXPRESSION_EVALUATION',
      jsonataCode: 'D3030',
    });
    await expect(evaluate('items[')).rejects.toBeInstanceOf(ExpressionError);
    await expect(evaluate('items[')).rejects.toMatchObject({ code: 'EXPRESSION_SYNTAX' });
  });

  test('direct: false evaluates a plain projection with JSONata itself', async () => {
    const source = 'items.{ "id": id }';
    const { expression } = compileForEvaluation(source, DEFAULT_LIMITS);
    const interpreted = vi.spyOn(expression, 'evaluate');
    const input = { items: [{ id: 1 }, { id: 2 }] };
    expect(await evaluate(source, input)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(interpreted).not.toHaveBeenCalled();
    expect(await evaluate(source, input, { direct: false })).toEqual([{ id: 1 }, { id: 2 }]);
    expect(interpreted).toHaveBeenCalledTimes(1);
  });
});
