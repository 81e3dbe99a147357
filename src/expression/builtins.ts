import { JSONATA_FUNCTIONS } from './functions.js';
import { jsonata } from './jsonata.js';
import { LimitReached } from './limits.js';

/** A JSONata function value as `$name` evaluates to: its implementation and parsed signature. */
interface JsonataFunction {
  readonly _jsonata_function: true;
  readonly implementation: (...args: unknown[]) => unknown;
  readonly signature?: unknown;
}

/**
 * JSONata's own functions, read once from JSONata itself. Evaluating `$length` would give the
 * function, but evaluation is asynchronous in JSONata 2 and compiling must stay synchronous (a
 * top-level await would also keep the CLI's command bundles from being plain scripts, which V8 can
 * cache compiled: scripts/build-cli.mjs). JSONata calls its `__evaluate_entry` hook synchronously,
 * before its first await, with the environment: the functions are looked up there.
 */
const ORIGINALS: ReadonlyMap<string, JsonataFunction> = (() => {
  const expression = jsonata('0');
  let environment: { lookup(name: string): unknown } | undefined;
  expression.assign(Symbol.for('jsonata.__evaluate_entry') as unknown as string, (...args: unknown[]) => {
    environment ??= args[2] as typeof environment;
  });
  void expression.evaluate({});
  if (!environment) throw new Error('JSONata no longer calls its evaluate-entry hook synchronously');
  return new Map([...JSONATA_FUNCTIONS].map((name) => [name, environment!.lookup(name) as JsonataFunction]));
})();

const guardedByLimit = new Map<number, ReadonlyArray<readonly [string, JsonataFunction]>>();

/**
 * Every JSONata function, refusing texts longer than `maxStringLength` (and `$pad` widths beyond
 * it). `$length`, `$substring`, `$pad`, `$split(s, "")` and the format functions spread a text into
 * one array entry per character; past V8's largest array that is a fatal error that ends the
 * process, whatever catches it. Bound over JSONata's own names in each compiled expression, so the
 * checks cost nothing per evaluation.
 */
export function guardedBuiltins(maxStringLength: number): ReadonlyArray<readonly [string, JsonataFunction]> {
  let guarded = guardedByLimit.get(maxStringLength);
  if (!guarded) {
    guarded = [...ORIGINALS].map(
      ([name, original]) => [name, guard(name, original, maxStringLength)] as const,
    );
    guardedByLimit.set(maxStringLength, guarded);
  }
  return guarded;
}

function guard(name: string, original: JsonataFunction, max: number): JsonataFunction {
  const implementation = function (this: unknown, ...args: unknown[]): unknown {
    for (const arg of args) {
      if (typeof arg === 'string' && arg.length > max)
        throw tooLong(`$${name}() was given a text of ${arg.length} characters`, max);
    }
    if (name === 'pad' && typeof args[1] === 'number' && Math.abs(args[1]) > max) {
      throw tooLong(`$pad() was asked for a width of ${Math.abs(args[1])}`, max);
    }
    return original.implementation.apply(this, args);
  };
  return { ...original, implementation };
}

export function tooLong(what: string, max: number): LimitReached {
  return new LimitReached(
    'string-length',
    `${what}; texts in expressions are limited to ${max} characters (settings.expressions.maxStringLength)`,
  );
}
