import { compileExpression } from './compile.js';
import { ExpressionError, isJsonataFailure } from './errors.js';
import { DEFAULT_LIMITS, type ExpressionLimits } from './limits.js';
import { ScriptError } from './scripts/errors.js';
import { CONTEXT_VARIABLE } from './translate.js';

/** What expressions of one solution evaluate with: the guardrails and the script functions. */
export interface ExpressionEnv {
  readonly limits: ExpressionLimits;
  /** Extra `$` bindings: the solution's script functions (`module·fn`). */
  readonly functions: Readonly<Record<string, unknown>>;
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
  const expression = compileExpression(source, env.limits);
  try {
    return normalise(await expression.evaluate(input, { ...env.functions, [CONTEXT_VARIABLE]: context }));
  } catch (error) {
    // A script's own failure keeps its code (SCRIPT_TIMEOUT, ...); the caller adds the expression's place.
    if (error instanceof ScriptError || !isJsonataFailure(error)) throw error;
    throw new ExpressionError('EXPRESSION_EVALUATION', `${error.message} (JSONata ${error.code})`, {
      jsonataCode: error.code,
      ...(error.position === undefined ? {} : { index: Math.max(0, error.position - 1) }),
      cause: error,
    });
  }
}

/**
 * JSONata marks the arrays it builds as sequences (extra own properties such as `sequence`); hand
 * back plain JSON values, copying only the arrays that carry such marks.
 */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) {
    const marked = 'sequence' in value;
    let copy: unknown[] | undefined = marked ? Array.from(value) : undefined;
    for (let i = 0; i < value.length; i++) {
      const item = normalise(value[i]);
      if (item !== value[i]) {
        copy ??= Array.from(value);
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    for (const key in value) {
      const record = value as Record<string, unknown>;
      const item = normalise(record[key]);
      if (item !== record[key]) record[key] = item;
    }
  }
  return value;
}

/** JSONata truthiness for conditions: the same rules as its `$boolean()`. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.some(isTruthy);
  if (typeof value === 'object') return Object.keys(value).length > 0;
  if (typeof value === 'number') return !Number.isNaN(value);
  return true;
}
