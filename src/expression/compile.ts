import type Jsonata from 'jsonata';
import { eachAstNode } from './ast.js';
import { guardedBuiltins } from './builtins.js';
import { type DirectEvaluator, directEvaluator } from './direct.js';
import { ExpressionError, isJsonataFailure } from './errors.js';
import { CUSTOM_FUNCTIONS } from './functions.js';
import { jsonata } from './jsonata.js';
import { DEFAULT_LIMITS, type ExpressionLimits } from './limits.js';
import { MAX_EXPRESSION_NESTING, tooDeepAt } from './nesting.js';
import { LinearRegExp, unsupportedRegex } from './regex.js';
import { type Translation, translateContext } from './translate.js';

export type CompiledExpression = Jsonata.Expression;

export interface CompileFailure {
  /** `EXPRESSION_TOO_DEEP` when the expression nests deeper than restfn parses. */
  readonly code: 'EXPRESSION_SYNTAX' | 'EXPRESSION_TOO_DEEP';
  readonly jsonataCode: string | undefined;
  /** The token JSONata names with its code, if it names one. */
  readonly token?: string;
  /** Zero-based index into the source text (before `@ctx` translation). */
  readonly index: number;
  readonly message: string;
}

type Compiled =
  | {
      ok: true;
      expression: CompiledExpression;
      translation: Translation;
      /** The closures that evaluate a plain projection without JSONata's interpreter (direct.ts). */
      direct: DirectEvaluator | undefined;
      /** Whether an evaluation may read the clock (`$now`, `$millis`, or `$eval` of any text). */
      readsClock: boolean;
    }
  | { ok: false; failure: CompileFailure; cacheable: boolean };

/**
 * Compiled expressions by limits and source text: each distinct text is parsed once per process.
 * Guardrails are compile options in JSONata, but their counters live in each evaluation, so one
 * compiled expression is safe to share between concurrent evaluations.
 */
const cache = new Map<string, Map<string, Compiled>>();
/** The cache of one limits object, found without building a key per evaluation. */
const byLimits = new WeakMap<ExpressionLimits, Map<string, Compiled>>();

function compile(source: string, limits: ExpressionLimits): Compiled {
  let compiled = byLimits.get(limits);
  if (!compiled) {
    // Limits objects with the same values share one cache.
    const key = `${limits.timeoutMs}:${limits.maxDepth}:${limits.maxSequence}:${limits.maxStringLength}`;
    compiled = cache.get(key);
    if (!compiled) {
      compiled = new Map();
      cache.set(key, compiled);
    }
    byLimits.set(limits, compiled);
  }
  let entry = compiled.get(source);
  if (!entry) {
    entry = parse(source, limits);
    if (entry.ok || entry.cacheable) compiled.set(source, entry);
  }
  return entry;
}

function parse(source: string, limits: ExpressionLimits): Compiled {
  const translation = translateContext(source);
  const toSource = (translatedIndex: number) =>
    Math.min(translation.sourceIndex(translatedIndex), Math.max(0, source.length - 1));
  const fail = (failure: Omit<CompileFailure, 'jsonataCode'> & { jsonataCode?: string }, cacheable = true) =>
    ({ ok: false, failure: { jsonataCode: undefined, ...failure }, cacheable }) as const;

  // JSONata parses recursively: too deep a nesting overflows the stack inside its parser.
  const deep = tooDeepAt(translation.text);
  if (deep !== undefined)
    return fail({ code: 'EXPRESSION_TOO_DEEP', index: toSource(deep), message: tooDeep() });
  let expression: CompiledExpression;
  try {
    const options = {
      timeout: limits.timeoutMs,
      stack: limits.maxDepth,
      sequence: limits.maxSequence,
      RegexEngine: LinearRegExp,
    };
    expression = jsonata(translation.text, options as unknown as Jsonata.JsonataOptions);
  } catch (error) {
    // Long operator chains without brackets (`a.a.a...`, `- - - 1`) can overflow the parser too. Not
    // cached: how deep the stack already was when compiling had a part in it.
    if (error instanceof RangeError)
      return fail({ code: 'EXPRESSION_TOO_DEEP', index: 0, message: tooDeep() }, false);
    // JSONata's scanner tries each regular expression literal with RegExp before restfn's engine
    // sees it: V8 refuses `/a++/` with a SyntaxError that carries no position.
    if (error instanceof SyntaxError) {
      const slash = translation.text.indexOf('/');
      return fail({
        code: 'EXPRESSION_SYNTAX',
        index: toSource(Math.max(0, slash)),
        message: `not a valid regular expression: ${error.message.replace(/^Invalid regular expression: /, '')}`,
      });
    }
    if (!isJsonataFailure(error)) throw error;
    // JSONata's `position` is the index just past the offending token.
    const message = `${error.message ?? 'invalid expression'}${error.code ? ` (JSONata ${error.code})` : ''}`;
    return fail({
      code: 'EXPRESSION_SYNTAX',
      jsonataCode: error.code,
      ...(typeof error.token === 'string' ? { token: error.token } : {}),
      index: toSource(Math.max(0, (error.position ?? 1) - 1)),
      message,
    });
  }
  const regexFailure = unsupportedRegexIn(expression.ast());
  if (regexFailure)
    return fail({
      code: 'EXPRESSION_SYNTAX',
      index: toSource(regexFailure.index),
      message: regexFailure.message,
    });

  for (const [name, fn] of guardedBuiltins(limits.maxStringLength)) expression.assign(name, fn);
  for (const f of CUSTOM_FUNCTIONS) expression.registerFunction(f.name, f.implementation, f.signature);
  const ast = expression.ast();
  return {
    ok: true,
    expression,
    translation,
    direct: directEvaluator(ast, limits),
    readsClock: readsClock(ast),
  };
}

/** The built-ins that read the evaluation's instant, and `$eval`, whose text may call them. */
const CLOCK_NAMES = new Set(['now', 'millis', 'eval']);

function readsClock(ast: unknown): boolean {
  let reads = false;
  eachAstNode(ast, (node) => {
    if (node.type === 'variable' && CLOCK_NAMES.has(node.value as string)) reads = true;
  });
  return reads;
}

function tooDeep(): string {
  return `the expression nests deeper than ${MAX_EXPRESSION_NESTING} levels; split it into smaller steps (variables with :=, or several fields)`;
}

/** The first regular expression literal the linear-time engine cannot run, with where it starts. */
function unsupportedRegexIn(ast: unknown): { index: number; message: string } | undefined {
  let found: { index: number; message: string } | undefined;
  eachAstNode(ast, (node) => {
    if (found || node.type !== 'regex' || !(node.value instanceof RegExp)) return;
    const message = unsupportedRegex(node.value);
    // JSONata's position is just past the closing `/` and flags.
    const end = typeof node.position === 'number' ? node.position : 0;
    if (message)
      found = { index: Math.max(0, end - node.value.source.length - 2 - flagCount(node.value)), message };
  });
  return found;
}

function flagCount(regex: RegExp): number {
  return regex.flags.replace('g', '').length;
}

/**
 * Compiles one expression body (the text after `=`). Throws `ExpressionError` with code
 * `EXPRESSION_SYNTAX` (or `EXPRESSION_TOO_DEEP`) when it does not compile; `checkSyntax` returns
 * the failure as a value.
 */
export function compileExpression(
  source: string,
  limits: ExpressionLimits = DEFAULT_LIMITS,
): CompiledExpression {
  return compileForEvaluation(source, limits).expression;
}

/**
 * What evaluates `source`: JSONata's expression and, for a plain projection, its direct evaluator
 * (direct.ts). Throws like `compileExpression`.
 */
export function compileForEvaluation(
  source: string,
  limits: ExpressionLimits,
): { expression: CompiledExpression; direct: DirectEvaluator | undefined; readsClock: boolean } {
  const compiled = compile(source, limits);
  if (compiled.ok) return compiled;
  const { failure } = compiled;
  throw new ExpressionError(failure.code, failure.message, {
    jsonataCode: failure.jsonataCode,
    ...(failure.token === undefined ? {} : { token: failure.token }),
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
): { ast: Jsonata.ExprNode; translation: Translation } | undefined {
  const compiled = compile(source, limits);
  return compiled.ok ? { ast: compiled.expression.ast(), translation: compiled.translation } : undefined;
}
