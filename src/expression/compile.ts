import jsonata from 'jsonata';
import { ExpressionError, isJsonataFailure } from './errors.js';
import { CUSTOM_FUNCTIONS } from './functions.js';
import { DEFAULT_LIMITS, type ExpressionLimits } from './limits.js';
import { type Translation, translateContext } from './translate.js';

export type CompiledExpression = jsonata.Expression;

export interface CompileFailure {
  readonly jsonataCode: string | undefined;
  /** Zero-based index into the source text (before `@ctx` translation). */
  readonly index: number;
  readonly message: string;
}

type Compiled =
  | { ok: true; expression: CompiledExpression; translation: Translation }
  | { ok: false; failure: CompileFailure };

/**
 * Compiled expressions by limits and source text: each distinct text is parsed once per process.
 * Guardrails are compile options in JSONata, but their counters live in each evaluation, so one
 * compiled expression is safe to share between concurrent evaluations.
 */
const cache = new Map<string, Compiled>();

function compile(source: string, limits: ExpressionLimits): Compiled {
  const key = `${limits.timeoutMs}:${limits.maxDepth}:${limits.maxSequence}\u0000${source}`;
  let entry = cache.get(key);
  if (!entry) {
    entry = parse(source, limits);
    cache.set(key, entry);
  }
  return entry;
}

function parse(source: string, limits: ExpressionLimits): Compiled {
  const translation = translateContext(source);
  try {
    const options = { timeout: limits.timeoutMs, stack: limits.maxDepth, sequence: limits.maxSequence };
    const expression = jsonata(translation.text, options as jsonata.JsonataOptions);
    for (const f of CUSTOM_FUNCTIONS) expression.registerFunction(f.name, f.implementation, f.signature);
    return { ok: true, expression, translation };
  } catch (error) {
    if (!isJsonataFailure(error)) throw error;
    // JSONata's `position` is the index just past the offending token.
    const translatedIndex = Math.max(0, (error.position ?? 1) - 1);
    const index = Math.min(translation.sourceIndex(translatedIndex), Math.max(0, source.length - 1));
    const message = `${error.message ?? 'invalid expression'}${error.code ? ` (JSONata ${error.code})` : ''}`;
    return { ok: false, failure: { jsonataCode: error.code, index, message } };
  }
}

/**
 * Compiles one expression body (the text after `=`). Throws `ExpressionError` with code
 * `EXPRESSION_SYNTAX` when JSONata rejects it; `checkSyntax` returns the failure as a value.
 */
export function compileExpression(
  source: string,
  limits: ExpressionLimits = DEFAULT_LIMITS,
): CompiledExpression {
  const compiled = compile(source, limits);
  if (compiled.ok) return compiled.expression;
  const { failure } = compiled;
  throw new ExpressionError('EXPRESSION_SYNTAX', failure.message, {
    jsonataCode: failure.jsonataCode,
    index: failure.index,
  });
}

/** Undefined when `source` compiles, else where and why it does not. */
export function checkSyntax(
  source: string,
  limits: ExpressionLimits = DEFAULT_LIMITS,
): CompileFailure | undefined {
  const compiled = compile(source, limits);
  return compiled.ok ? undefined : compiled.failure;
}

/** The parsed expression and how its positions map back to the source; undefined when it does not compile. */
export function analyse(
  source: string,
  limits: ExpressionLimits = DEFAULT_LIMITS,
): { ast: jsonata.ExprNode; translation: Translation } | undefined {
  const compiled = compile(source, limits);
  return compiled.ok ? { ast: compiled.expression.ast(), translation: compiled.translation } : undefined;
}
