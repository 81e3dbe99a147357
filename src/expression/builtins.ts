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
// Read at the first compile rather than when this module loads: the browser build loads JSONata
// only then (jsonata.browser.ts), not with the client's worker.
let originalsRead: ReadonlyMap<string, JsonataFunction> | undefined;
const originals = (): ReadonlyMap<string, JsonataFunction> => (originalsRead ??= readOriginals());
function readOriginals(): ReadonlyMap<string, JsonataFunction> {
  const expression = jsonata('0');
  let environment: { lookup(name: string): unknown } | undefined;
  expression.assign(Symbol.for('jsonata.__evaluate_entry') as unknown as string, (...args: unknown[]) => {
    environment ??= args[2] as typeof environment;
  });
  void expression.evaluate({});
  if (!environment) throw new Error('JSONata no longer calls its evaluate-entry hook synchronously');
  return new Map([...JSONATA_FUNCTIONS].map((name) => [name, environment!.lookup(name) as JsonataFunction]));
}

/**
 * The variable each JSONata evaluation binds to its instant (Date.now() when it starts), which
 * `$now()` and `$millis()` read. A space is in no JSONata variable name: expressions cannot reach it.
 */
export const EVALUATION_INSTANT = 'restfn instant';

/** What JSONata hands a function as `this`: the frame of the call, which leads to the evaluation's bindings. */
interface CallFocus {
  readonly environment?: { lookup(name: string): unknown };
}

function instantOf(focus: CallFocus | undefined): number {
  const instant = focus?.environment?.lookup(EVALUATION_INSTANT);
  return typeof instant === 'number' ? instant : Date.now();
}

/**
 * `$now()` and `$millis()` as JSONata defines them, one instant per evaluation, with JSONata's own
 * signatures. JSONata binds its own pair in each compiled expression, reading a time it sets when
 * `evaluate` is called; restfn shares compiled expressions between concurrent evaluations, so the
 * instant is read from the evaluation's own bindings instead (`EVALUATION_INSTANT`).
 */
let clockRead: ReadonlyMap<string, JsonataFunction> | undefined;
const clock = (): ReadonlyMap<string, JsonataFunction> => (clockRead ??= readClock());
function readClock(): ReadonlyMap<string, JsonataFunction> {
  const ORIGINALS = originals();
  const fromMillis = ORIGINALS.get('fromMillis')!.implementation;
  return new Map([
    [
      'now',
      {
        ...ORIGINALS.get('now')!,
        implementation: function now(this: CallFocus, picture: unknown, timezone: unknown) {
          return fromMillis.call(this, instantOf(this), picture, timezone);
        },
      },
    ],
    [
      'millis',
      {
        ...ORIGINALS.get('millis')!,
        implementation: function millis(this: CallFocus) {
          return instantOf(this);
        },
      },
    ],
  ]);
}

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
    guarded = [...originals()].map(
      ([name, original]) => [name, guard(name, clock().get(name) ?? original, maxStringLength)] as const,
    );
    guardedByLimit.set(maxStringLength, guarded);
  }
  return guarded;
}

/**
 * The function with the checks in front, and everything JSONata reads of a function kept as it was:
 * its signature (which validates and coerces the arguments: `$substring` given the context), its
 * `length`, which is the function's arity to JSONata (`$map`, `$filter`, `$each` and `$sift` pass
 * the index and the whole array only to functions that take them; `$reduce` needs two), and its
 * parameter names, which JSONata reads from the function's source text to partially apply it
 * (`$substring(?, 0, 2)`).
 */
function guard(name: string, original: JsonataFunction, max: number): JsonataFunction {
  const inner = original.implementation;
  const implementation = function (this: unknown, ...args: unknown[]): unknown {
    for (const arg of args) {
      if (typeof arg === 'string' && arg.length > max)
        throw tooLong(`$${name}() was given a text of ${arg.length} characters`, max);
    }
    if (name === 'pad' && typeof args[1] === 'number' && Math.abs(args[1]) > max) {
      throw tooLong(`$pad() was asked for a width of ${Math.abs(args[1])}`, max);
    }
    return inner.apply(this, args);
  };
  Object.defineProperties(implementation, {
    length: { value: inner.length },
    toString: { value: () => Function.prototype.toString.call(inner) },
  });
  return { ...original, implementation };
}

export function tooLong(what: string, max: number): LimitReached {
  return new LimitReached(
    'string-length',
    `${what}; texts in expressions are limited to ${max} characters (settings.expressions.maxStringLength)`,
  );
}

/** A JSONata function's signature as JSONata declares it (`<s-nn?:s>`), for the editor's completion. */
export function builtinSignature(name: string): string | undefined {
  const signature = originals().get(name)?.signature as { definition?: unknown } | undefined;
  return typeof signature?.definition === 'string' ? signature.definition : undefined;
}
