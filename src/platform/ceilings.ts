import type { Diagnostic } from '../definition/diagnostic.js';
import { diagnostic } from '../definition/diagnostic.js';
import type { SolutionDefinition } from '../definition/schema/index.js';
import type { Solution } from '../definition/solution.js';
import { DEFAULT_LIMITS } from '../expression/limits.js';
import { DEFAULT_SCRIPT_LIMITS } from '../expression/scripts/sandbox.js';
import { DEFAULT_HTTP } from '../http/options.js';
import type { RuntimeOptions } from '../runtime/options.js';
import { cappedRetries } from './retry-ceilings.js';

/**
 * The operator's ceilings (`restfn serve --max-*`): every limit an author sets in solution.yaml is
 * capped by one of these, so no solution can give itself the time or memory to hold up the others.
 */
export interface Ceilings {
  /** Longest call of one expression script function. @default 1000 */
  readonly scriptMs: number;
  /** Longest evaluation of one JSONata expression. @default 2000 */
  readonly expressionMs: number;
  /** Memory of one execution (its scripts' sandbox, its worker's heap). @default 128 */
  readonly memoryMb: number;
  /** Longest execution as a whole (retries and waits included, a paged one's pages too), and so of any of its requests. @default 60000 */
  readonly executionMs: number;
  /** Executions of one solution at once; past it, 429 RATE_LIMITED with Retry-After. @default 64 */
  readonly concurrentPerSolution: number;
  /** Most retries an error handler's `retry.maxRetries` gets. @default 10 */
  readonly maxRetries: number;
  /** Shortest wait an error handler's `retry.delay` gets, in ms. @default 100 */
  readonly minRetryDelayMs: number;
  /** Requests one execution sends, retries and redirects counted (REQUEST_LIMIT past it). @default 100 */
  readonly requestsPerExecution: number;
  /**
   * Largest answer the platform gives (an execute's output with its trace, a `/call` response, a
   * page, a preview), MB; past it, ANSWER_TOO_LARGE. @default 50
   */
  readonly answerMb: number;
}

export const DEFAULT_CEILINGS: Ceilings = Object.freeze({
  scriptMs: 1000,
  expressionMs: 2000,
  memoryMb: 128,
  executionMs: 60_000,
  concurrentPerSolution: 64,
  maxRetries: 10,
  minRetryDelayMs: 100,
  requestsPerExecution: 100,
  answerMb: 50,
});

/**
 * Fixed ceilings of the settings no flag names: their defaults are already generous, and a higher
 * value only buys an author more of the process's stack and memory.
 */
const FIXED = {
  maxDepth: DEFAULT_LIMITS.maxDepth * 2,
  maxSequence: DEFAULT_LIMITS.maxSequence,
  maxStringLength: DEFAULT_LIMITS.maxStringLength,
  maxRedirections: 10,
  maxPages: 1000,
  /** Every solution's responses share the process's memory: a solution may lower it, not raise it. */
  maxResponseMb: DEFAULT_HTTP.maxResponseBytes / 1024 / 1024,
} as const;

/** One setting above its ceiling: where it is, what was asked, what applies. */
export interface CappedSetting {
  readonly path: readonly string[];
  readonly asked: number;
  readonly ceiling: number;
  /** The `restfn serve` flag that raises the ceiling, when there is one. */
  readonly flag?: string;
}

type Settings = NonNullable<SolutionDefinition['settings']>;

/**
 * The runtime options that hold a solution to the ceilings (they override its settings: see
 * `normalizeOptions`), and the settings that asked for more. A pure decision: the platform applies
 * it when it makes the solution's runtime, and publish reports the same list as warnings.
 */
export function capSettings(
  settings: Settings | undefined,
  ceilings: Ceilings,
): { options: RuntimeOptions; capped: CappedSetting[] } {
  const capped: CappedSetting[] = [];
  const cap = (
    path: string[],
    asked: number | undefined,
    fallback: number,
    ceiling: number,
    flag?: string,
  ) => {
    if (asked !== undefined && asked > ceiling)
      capped.push({ path, asked, ceiling, ...(flag ? { flag } : {}) });
    return Math.min(asked ?? fallback, ceiling);
  };
  const e = settings?.expressions;
  const h = settings?.http;
  const executionMs = cap(
    ['settings', 'execution', 'timeoutMs'],
    settings?.execution?.timeoutMs,
    ceilings.executionMs,
    ceilings.executionMs,
    '--max-execution-ms',
  );
  // A request never outlives its execution: the execution's ceiling caps every request timeout.
  const request = (key: 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'requestTimeoutMs') =>
    cap(['settings', 'http', key], h?.[key], DEFAULT_HTTP[key], executionMs, '--max-execution-ms');
  const options: RuntimeOptions = {
    executionTimeoutMs: executionMs,
    expressions: {
      timeoutMs: cap(
        ['settings', 'expressions', 'timeoutMs'],
        e?.timeoutMs,
        DEFAULT_LIMITS.timeoutMs,
        ceilings.expressionMs,
        '--max-expression-ms',
      ),
      maxDepth: cap(
        ['settings', 'expressions', 'maxDepth'],
        e?.maxDepth,
        DEFAULT_LIMITS.maxDepth,
        FIXED.maxDepth,
      ),
      maxSequence: cap(
        ['settings', 'expressions', 'maxSequence'],
        e?.maxSequence,
        DEFAULT_LIMITS.maxSequence,
        FIXED.maxSequence,
      ),
      maxStringLength: cap(
        ['settings', 'expressions', 'maxStringLength'],
        e?.maxStringLength,
        DEFAULT_LIMITS.maxStringLength,
        FIXED.maxStringLength,
      ),
    },
    scripts: {
      timeoutMs: cap(
        ['settings', 'scripts', 'timeoutMs'],
        settings?.scripts?.timeoutMs,
        DEFAULT_SCRIPT_LIMITS.timeoutMs,
        ceilings.scriptMs,
        '--max-script-ms',
      ),
      memoryBytes:
        cap(
          ['settings', 'scripts', 'memoryLimitMb'],
          settings?.scripts?.memoryLimitMb,
          DEFAULT_SCRIPT_LIMITS.memoryBytes / 1024 / 1024,
          ceilings.memoryMb,
          '--max-memory-mb',
        ) *
        1024 *
        1024,
    },
    http: {
      connectTimeoutMs: request('connectTimeoutMs'),
      headersTimeoutMs: request('headersTimeoutMs'),
      bodyTimeoutMs: request('bodyTimeoutMs'),
      requestTimeoutMs: request('requestTimeoutMs'),
      maxRedirections: cap(
        ['settings', 'http', 'maxRedirections'],
        h?.maxRedirections,
        DEFAULT_HTTP.maxRedirections,
        FIXED.maxRedirections,
      ),
      maxResponseBytes: Math.round(
        cap(
          ['settings', 'http', 'maxResponseMb'],
          h?.maxResponseMb,
          FIXED.maxResponseMb,
          FIXED.maxResponseMb,
        ) *
          1024 *
          1024,
      ),
    },
    maxPages: cap(['settings', 'sync', 'maxPages'], settings?.sync?.maxPages, FIXED.maxPages, FIXED.maxPages),
    // A paged execute (`"pages": true`) runs within the sync deadline, and is one execution.
    syncTimeoutMs: cap(
      ['settings', 'sync', 'timeoutMs'],
      settings?.sync?.timeoutMs,
      ceilings.executionMs,
      ceilings.executionMs,
      '--max-execution-ms',
    ),
    // Error handlers are in function files: their retries are held at run time (retry-ceilings.ts warns).
    retry: { handlerMaxRetries: ceilings.maxRetries, handlerMinDelayMs: ceilings.minRetryDelayMs },
    maxRequestsPerExecution: ceilings.requestsPerExecution,
  };
  return { options, capped };
}

/**
 * The capped settings as publish warnings, each at its key in solution.yaml; then the error
 * handlers' retries, at theirs in the function files.
 */
export function cappedFindings(solution: Solution, ceilings: Ceilings): Diagnostic[] {
  const handlers = cappedRetries(solution, ceilings);
  const file = solution.settings;
  if (!file?.definition) return handlers;
  const settings = capSettings(file.definition.settings, ceilings).capped.map((c) =>
    diagnostic(
      'SETTING_CAPPED',
      `${c.path.slice(1).join('.')} is ${c.asked}, above this platform's ceiling of ${c.ceiling}: ${c.ceiling} applies${c.flag ? ` (the operator sets it with restfn serve ${c.flag})` : ''}`,
      file.yaml.locate(c.path),
    ),
  );
  return [...settings, ...handlers];
}
