import { contextReads } from '../definition/rules/context-paths.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import { compileForEvaluation } from '../expression/compile.js';
import { ExpressionError } from '../expression/errors.js';
import type { ExpressionEnv } from '../expression/evaluate.js';
import { CUSTOM_FUNCTIONS, JSONATA_FUNCTIONS } from '../expression/functions.js';
import { jsonataLoaded, loadJsonata } from '../expression/jsonata.js';
import { expressionSource } from '../expression/source.js';
import { CONTEXT_VARIABLE } from '../expression/translate.js';

/**
 * The solution's named expressions (`expressions:` in solution.yaml), read as
 * `@ctx.expressions.<name>`. Each read evaluates the named expression where it is read, against
 * that execution's context as it is then (`@ctx.parameters`, `@ctx.response`... are the reading
 * function's), with `$` bound to `@ctx`: a name is a shared piece of an expression, not a value
 * frozen once. Only the names an expression reads are evaluated.
 */
export interface NamedExpressions {
  readonly file: SourceFile<'solution'>;
  readonly sources: Readonly<Record<string, unknown>>;
}

/** Where a context made by createContext keeps its solution's named expressions (not data: a symbol). */
export const NAMED_EXPRESSIONS = Symbol('named expressions');
/** The names being evaluated on the way to this context: a cycle is caught, not recursed into. */
const EVALUATING = Symbol('named expressions being evaluated');

const bySolution = new WeakMap<Solution, NamedExpressions | null>();

export function namedExpressionsOf(solution: Solution): NamedExpressions | undefined {
  let named = bySolution.get(solution);
  if (named === undefined) {
    const file = solution.settings;
    const sources = file?.definition?.expressions;
    named = file && sources && Object.keys(sources).length > 0 ? { file, sources } : null;
    bySolution.set(solution, named);
  }
  return named ?? undefined;
}

/** How one value of a file is evaluated (field.ts's `evaluateField`, passed in: no import cycle). */
export type EvaluateValue = (
  file: SourceFile,
  path: readonly (string | number)[],
  raw: unknown,
  input: unknown,
  context: unknown,
) => Promise<unknown>;

/**
 * What `body` is evaluated with: the context as it is, unless `body` reads named expressions; then
 * a shallow copy whose `expressions` holds the values of the names read as `@ctx.expressions.<name>`
 * (the context itself is never changed, so a later read sees the context as it is then), and
 * `bindings` with those read as `$name` (the platform's other spelling, which named expressions use
 * to read each other: `todayStart: =$toMillis($today)`). A JSONata function's name (`$now`) stays
 * JSONata's; a variable the expression binds itself (`$today := ...`) shadows the named one.
 */
export async function withNamedExpressions(
  body: string,
  context: unknown,
  env: ExpressionEnv,
  evaluate: EvaluateValue,
): Promise<{ context: unknown; bindings: Readonly<Record<string, unknown>> | undefined }> {
  const none = { context, bindings: undefined };
  if (context === null || typeof context !== 'object') return none;
  const named = (context as { [NAMED_EXPRESSIONS]?: NamedExpressions })[NAMED_EXPRESSIONS];
  if (!named) return none;
  const reads = readsOf(body, named);
  const viaContext = reads.viaContext;
  // A script function of the same name is the script's (scripts load after the cache is made).
  const viaVariable = reads.viaVariable.filter((name) => !Object.hasOwn(env.functions, name));
  if (viaContext.length === 0 && viaVariable.length === 0) return none;
  const evaluating: readonly string[] = (context as { [EVALUATING]?: string[] })[EVALUATING] ?? [];
  const values: Record<string, unknown> = {};
  for (const name of new Set([...viaContext, ...viaVariable])) {
    // Validation reports the circle first (NAMED_EXPRESSION_CYCLE); this is for a run without it.
    if (evaluating.includes(name)) {
      const at = named.file.yaml.locate(['expressions', name]);
      throw new ExpressionError(
        'EXPRESSION_EVALUATION',
        `named expressions read each other in a circle (${[...evaluating, name].join(' -> ')}): break it`,
        { location: { file: at.file, path: `expressions.${name}`, line: at.line, col: at.col } },
      );
    }
    const inner = withMarks({ ...(context as object) }, named, [...evaluating, name]);
    values[name] = await evaluateOne(named, name, inner, env, evaluate);
  }
  const expressions = Object.fromEntries(viaContext.map((name) => [name, values[name]]));
  const copy =
    viaContext.length === 0
      ? (context as Record<string, unknown>)
      : withMarks({ ...(context as Record<string, unknown>), expressions }, named, evaluating);
  const bindings =
    viaVariable.length === 0
      ? undefined
      : Object.fromEntries(viaVariable.map((name) => [name, values[name]]));
  return { context: copy, bindings };
}

/** Text that is no code: string literals, backquoted names and comments. */
const NOT_CODE = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|\/\*[\s\S]*?\*\//g;

/** What one expression text reads, found once per text: every evaluation of it asks again. */
interface Reads {
  readonly viaContext: readonly string[];
  readonly viaVariable: readonly string[];
}
const NO_READS: Reads = { viaContext: [], viaVariable: [] };
/** Bounded: texts are the solution's own, but a long-running process must not grow with them. */
const MAX_TEXTS = 10_000;
const readsByText = new WeakMap<NamedExpressions, Map<string, Reads>>();

function readsOf(body: string, named: NamedExpressions): Reads {
  let cache = readsByText.get(named);
  if (!cache) {
    cache = new Map();
    readsByText.set(named, cache);
  }
  let reads = cache.get(body);
  if (!reads) {
    const viaContext = body.includes('expressions') ? namesRead(body, named) : [];
    const viaVariable = body.includes('$') ? variablesRead(body, named) : [];
    reads = viaContext.length === 0 && viaVariable.length === 0 ? NO_READS : { viaContext, viaVariable };
    if (cache.size >= MAX_TEXTS) cache.clear();
    cache.set(body, reads);
  }
  return reads;
}

/** The named expressions `body` reads as `$name`: names that are no JSONata or restfn function. */
function variablesRead(body: string, named: NamedExpressions): string[] {
  const code = body.replace(NOT_CODE, ' ');
  const found = new Set<string>();
  for (const [, name] of code.matchAll(/\$([A-Za-z_][\w]*)/g)) {
    if (!Object.hasOwn(named.sources, name!) || JSONATA_FUNCTIONS.has(name!)) continue;
    if (CUSTOM_FUNCTIONS.some((f) => f.name === name)) continue;
    found.add(name!);
  }
  return [...found];
}

function withMarks<T extends object>(target: T, named: NamedExpressions, evaluating: readonly string[]): T {
  Object.defineProperty(target, NAMED_EXPRESSIONS, { value: named });
  Object.defineProperty(target, EVALUATING, { value: evaluating });
  return target;
}

/** The names `body` reads; all of them when it reads `@ctx.expressions` (or `@ctx`) as a whole. */
function namesRead(body: string, named: NamedExpressions): string[] {
  const all = Object.keys(named.sources);
  const wanted = new Set<string>();
  for (const { names } of contextReads(body)) {
    if (names[0] !== 'expressions') continue;
    if (names[1] === undefined) return all;
    if (Object.hasOwn(named.sources, names[1])) wanted.add(names[1]);
  }
  if (/@(?:ctx)?\.expressions(?![.\w$])|@(?:ctx)?(?![.\w$])/.test(body)) return all;
  return [...wanted];
}

/**
 * One named expression's value. A function (`=function($p) {...}`) is kept as the function, so
 * `@ctx.expressions.format(1)` calls it: it is defined just before the reading expression runs, so
 * the JSONata time limit it carries from its definition is the reading expression's own.
 */
async function evaluateOne(
  named: NamedExpressions,
  name: string,
  context: object,
  env: ExpressionEnv,
  evaluate: EvaluateValue,
): Promise<unknown> {
  const raw = named.sources[name];
  const source = typeof raw === 'string' ? expressionSource(raw) : undefined;
  if (source && /^\s*\(?\s*(?:function|λ)\s*\(/.test(source.body)) {
    try {
      if (!jsonataLoaded()) await loadJsonata(); // the browser build's, at the first evaluation
      const { expression } = compileForEvaluation(source.body, env.limits);
      return await expression.evaluate(context, { ...env.functions, [CONTEXT_VARIABLE]: context });
    } catch {
      // Said with its place in solution.yaml by the ordinary evaluation below.
    }
  }
  return evaluate(named.file, ['expressions', name], raw, context, context);
}
