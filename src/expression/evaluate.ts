import { EVALUATION_INSTANT, tooLong } from './builtins.js';
import { compileForEvaluation } from './compile.js';
import { BY_JSONATA, directEnabled } from './direct.js';
import { ExpressionError, isJsonataFailure } from './errors.js';
import { jsonataLoaded, loadJsonata } from './jsonata.js';
import { DEFAULT_LIMITS, type ExpressionLimits, LimitReached } from './limits.js';
import { ScriptError } from './scripts/errors.js';
import { expressionSource } from './source.js';
import { CONTEXT_VARIABLE } from './translate.js';

/** What expressions of one solution evaluate with: the guardrails and the script functions. */
export interface ExpressionEnv {
  readonly limits: ExpressionLimits;
  /** Extra `$` bindings: the solution's script functions (`module·fn`). */
  readonly functions: Readonly<Record<string, unknown>>;
  /** `false`: always JSONata's interpreter, never direct evaluation (direct.ts). */
  readonly direct?: boolean;
}

export const DEFAULT_ENV: ExpressionEnv = Object.freeze({ limits: DEFAULT_LIMITS, functions: {} });

/**
 * Evaluates an expression body with `$` bound to `input` and `@ctx` to `context`. Runtime failures
 * (including guardrail trips: D1011 stack, D1012 timeout, D2015 sequence) become `ExpressionError`
 * with code `EXPRESSION_EVALUATION`.
 */
export async function evaluateExpression(
  source: string,
  input: unknown,
  context: unknown,
  env: ExpressionEnv = DEFAULT_ENV,
): Promise<unknown> {
  // The browser build loads JSONata here, at the first evaluation (jsonata.browser.ts); Node has it.
  if (!jsonataLoaded()) await loadJsonata();
  const { expression, direct, readsClock } = compileForEvaluation(source, env.limits);
  let result: unknown;
  try {
    // A plain projection is evaluated directly; JSONata takes what that leaves to it.
    result = direct && env.direct !== false && directEnabled() ? direct(input) : BY_JSONATA;
    // The evaluation's instant, which `$now()` and `$millis()` give (builtins.ts), taken only for
    // the expressions that may read it.
    if (result === BY_JSONATA)
      result = await expression.evaluate(
        input,
        readsClock
          ? { ...env.functions, [CONTEXT_VARIABLE]: context, [EVALUATION_INSTANT]: Date.now() }
          : { ...env.functions, [CONTEXT_VARIABLE]: context },
      );
  } catch (error) {
    // A script's own failure keeps its code (SCRIPT_TIMEOUT, ...); the caller adds the expression's place.
    if (error instanceof ScriptError) throw error;
    const limit = limitFailure(error);
    if (limit) {
      const position = (error as { position?: unknown }).position;
      throw new ExpressionError('EXPRESSION_EVALUATION', limit.message, {
        ...(typeof position === 'number' ? { index: Math.max(0, position - 1) } : {}),
        limit: limit.limit,
        cause: error,
      });
    }
    if (!isJsonataFailure(error)) throw error;
    throw new ExpressionError('EXPRESSION_EVALUATION', `${error.message} (JSONata ${error.code})`, {
      jsonataCode: error.code,
      ...(typeof error.token === 'string' ? { token: error.token } : {}),
      ...(error.position === undefined ? {} : { index: Math.max(0, error.position - 1) }),
      cause: error,
    });
  }
  // `&` joins texts without limit (V8 keeps them as cheap ropes): the result is checked too.
  if (typeof result === 'string' && result.length > env.limits.maxStringLength) {
    const reached = tooLong(
      `the expression gives a text of ${result.length} characters`,
      env.limits.maxStringLength,
    );
    throw new ExpressionError('EXPRESSION_EVALUATION', reached.message, { limit: reached.limit });
  }
  try {
    return normalise(result, 0);
  } catch (error) {
    if (!(error instanceof LimitReached)) throw error;
    throw new ExpressionError('EXPRESSION_EVALUATION', error.message, { limit: error.limit });
  }
}

/** How `evaluate` runs an expression. */
export interface EvaluateOptions {
  /** Values (and JavaScript functions) the expression reads as `$name`. */
  readonly bindings?: Readonly<Record<string, unknown>>;
  /** What `@ctx` and `@.` read, as functions see their context (`@ctx.parameters`, `@ctx.response`...). */
  readonly context?: unknown;
  /** `false` evaluates plain projections with JSONata's interpreter too. @default true */
  readonly direct?: boolean;
  /** The guardrails (settings.expressions). @default DEFAULT_LIMITS */
  readonly limits?: ExpressionLimits;
}

/**
 * Evaluates an expression exactly as restfn's functions do, to test one outside a function: JSONata
 * as an `outputTransform` takes it (a leading `=` optional), `@ctx` and `@.` reading
 * `options.context`, with restfn's functions, guardrails and direct evaluation. Resolves to the
 * value (`undefined` when it gives nothing); fails with `ExpressionError` (`EXPRESSION_SYNTAX`,
 * `EXPRESSION_TOO_DEEP`, `EXPRESSION_EVALUATION`; JSONata's own code in `jsonataCode`).
 */
export function evaluate(
  expression: string,
  input?: unknown,
  options: EvaluateOptions = {},
): Promise<unknown> {
  const { body } = expressionSource(expression, true)!;
  return evaluateExpression(body, input, options.context, {
    limits: options.limits ?? DEFAULT_LIMITS,
    functions: options.bindings ?? {},
    ...(options.direct === false ? { direct: false } : {}),
  });
}

/**
 * How deep a result may nest: as deep as a response may (`settings.http.maxResponseDepth` tops out
 * here because SQLite's JSON functions refuse deeper values). A recursive expression can build data
 * deeper than any response, and walking it must not overflow the stack.
 */
const MAX_RESULT_DEPTH = 1000;

/**
 * Limits reached inside an evaluation: restfn's own (`LimitReached`) and V8's, which JSONata's
 * guardrails do not catch (a text past V8's longest string, an array past its largest, a native
 * stack overflow). Each becomes an error that says which limit and what to do.
 */
function limitFailure(error: unknown): LimitReached | undefined {
  if (error instanceof LimitReached) return error;
  if (!(error instanceof RangeError)) return undefined;
  if (/string length/i.test(error.message)) {
    return new LimitReached(
      'string-length',
      'the expression built a text longer than JavaScript can hold; build smaller texts (is a loop doubling one?)',
    );
  }
  if (/array length|invalid size/i.test(error.message)) {
    return new LimitReached('array-length', 'the expression built a list longer than JavaScript can hold');
  }
  if (/call stack/i.test(error.message)) {
    return new LimitReached(
      'stack',
      'the expression (or the data it walks) nests too deeply to evaluate; flatten the data or the expression',
    );
  }
  return undefined;
}

/** Only objects, arrays and functions can need work; texts, numbers and null are kept as they are. */
function needsNormalising(value: unknown): boolean {
  return value !== null && (typeof value === 'object' || typeof value === 'function');
}

/**
 * JSONata marks the arrays it builds as sequences (extra own properties such as `sequence`); hand
 * back plain JSON values, copying only the arrays that carry such marks and what holds a changed
 * value (the input's own objects are never changed). Only objects and arrays are visited (a leaf
 * costs a type check, not a call); bytes are left as they are.
 */
function normalise(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) {
    return typeof value === 'function' ? undefined : value;
  }
  if (depth >= MAX_RESULT_DEPTH) {
    throw new LimitReached(
      'depth',
      `the expression gives a value nested more than ${MAX_RESULT_DEPTH} deep; flatten it (is a recursive function wrapping its result?)`,
    );
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined = 'sequence' in value ? Array.from(value) : undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (!needsNormalising(item)) continue;
      const plain = normalise(item, depth + 1);
      if (plain !== item) {
        copy ??= Array.from(value);
        copy[i] = plain;
      }
    }
    return copy ?? value;
  }
  // A function value (JSONata's lambdas are objects with a cyclic environment) is no data: it is
  // dropped, as JSON.stringify drops functions.
  if ((value as { _jsonata_lambda?: unknown })._jsonata_lambda === true) return undefined;
  const record = value as Record<string, unknown>;
  // Copied before the first change, as arrays are: the object may be the input's own (`{ "a": a }`
  // hands out the input's value), which an evaluation must leave as it was.
  let copy: Record<string, unknown> | undefined;
  // Own keys in one array: `for...in` on JSONata's dictionary-mode objects also walks the prototype.
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = record[key];
    if (!needsNormalising(item)) continue;
    const plain = normalise(item, depth + 1);
    if (plain === item) continue;
    // JSONata's objects have no prototype: the copy keeps whichever the object has.
    copy ??= Object.assign(Object.create(Object.getPrototypeOf(record)), record) as Record<string, unknown>;
    if (plain === undefined) delete copy[key];
    else copy[key] = plain;
  }
  return copy ?? value;
}

/** JSONata truthiness for conditions: the same rules as its `$boolean()`. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.some(isTruthy);
  if (typeof value === 'object') return Object.keys(value).length > 0;
  if (typeof value === 'number') return !Number.isNaN(value);
  return true;
}
