import type { ErrorCode } from '../../errors/codes.js';
import { RestfnError } from '../../errors/restfn-error.js';
import type { Ceilings } from '../ceilings.js';
import type { CacheReport } from './solution-runtimes.js';

/**
 * The messages between the platform's request thread and its executor workers. Everything an author
 * controls (YAML, JSONata, scripts, the remote's answer) is handled in a worker; the request thread
 * only ever gets plain values and coded errors back.
 */

export type { ActionInfo, DatasourceInfo, FunctionInfo } from '../console-types.js';

/** What a worker does for one request. */
export type Task =
  | { readonly kind: 'describe' }
  | {
      readonly kind: 'execute';
      readonly name: string;
      readonly parameters: Record<string, unknown>;
      readonly context: Record<string, unknown>;
      readonly correlationId: string;
      readonly trace: boolean;
      /** Answer with the last request's method and url (credentials masked). */
      readonly sent?: boolean;
    }
  | {
      readonly kind: 'pages';
      readonly name: string;
      readonly parameters: Record<string, unknown>;
      readonly context: Record<string, unknown>;
      /** Each page line with its last request's method and url (credentials masked). */
      readonly sent?: boolean;
    }
  | {
      readonly kind: 'call';
      readonly name: string;
      readonly values: Record<string, unknown>;
      readonly continuation?: { url: string | undefined };
      readonly context?: { entity?: string; commandId?: string };
      readonly correlationId?: string;
      /** The calling user (`@ctx.user`). */
      readonly user: { id: string; name: string; displayName?: string };
    }
  | { readonly kind: 'action'; readonly name: string; readonly context: Record<string, unknown> }
  /** Only in a sandbox process (sandbox.ts): a datasource runs the author's SQL. */
  | { readonly kind: 'datasource'; readonly name: string; readonly context: Record<string, unknown> }
  | { readonly kind: 'origins'; readonly key: string }
  | { readonly kind: 'validate'; readonly files: Readonly<Record<string, string>> };

/**
 * What an execute's worker hands back: the answer's JSON text, built in the worker (the output may
 * be large: the request thread, which answers every solution, only writes it out), and its status
 * for the audit.
 */
export interface ExecuteAnswer {
  readonly status: 'ok' | 'skipped';
  readonly json: string;
}

/** What a `/call`'s worker hands back: the answer's JSON text, and its correlation id for the audit. */
export interface CallAnswer {
  readonly correlationId: string;
  readonly json: string;
}

/** A credential record operation, asked of the request thread (which holds the vault). */
export type RecordsOp = 'get' | 'keys' | 'getTokens' | 'setTokens' | 'clearTokens' | 'lock' | 'unlock';

export type ToWorker =
  | {
      readonly type: 'task';
      readonly id: number;
      readonly solution: string;
      /**
       * The published version and its folder; absent for a publish's validation. `allowHosts`: the
       * private targets an admin allowed the solution through the API (`--allow-target`'s are in
       * the worker's own config).
       */
      readonly version?: {
        readonly number: number;
        readonly root: string;
        readonly allowHosts?: readonly string[];
      };
      readonly task: Task;
    }
  | { readonly type: 'abort'; readonly id: number }
  /** Its share of the solution cache now (the total split over the workers there are). */
  | { readonly type: 'cache-limit'; readonly bytes: number }
  /** The page was written: the next may come (backpressure for `pages`). */
  | { readonly type: 'page-read'; readonly id: number }
  | {
      readonly type: 'records-answer';
      readonly rid: number;
      readonly value?: unknown;
      readonly error?: WireError;
    };

/** A request a worker's execution sent: solution, function, seconds, status or error code. */
export type CallSeen = readonly [string, string, number, string];

/** Most requests (and retries) one report carries; past it, the rest of the interval is not counted. */
export const MAX_CALLS_REPORTED = 10_000;

/** A line a solution's script wrote with `console.*`: solution, `module.function`, level, text. */
export type ScriptLogSeen = readonly [string, string, string, string];

/**
 * Most script console lines one report carries (each at most 2,000 characters: sandbox.ts); past
 * it, the rest of the interval's lines are not logged. An author can log in a loop; the server's
 * log must not grow with it.
 */
export const MAX_LOGS_REPORTED = 200;

const LEVELS: ReadonlySet<string> = new Set(['log', 'info', 'warn', 'error', 'debug']);

/** The script lines of a worker's report, taken only as the plain values they must be. */
export function reportedLogs(report: { logs?: unknown }): ScriptLogSeen[] {
  const logs: ScriptLogSeen[] = [];
  if (!Array.isArray(report.logs)) return logs;
  for (const seen of report.logs.slice(0, MAX_LOGS_REPORTED)) {
    if (!Array.isArray(seen)) continue;
    const [solution, source, level, message] = seen as unknown[];
    if (typeof solution !== 'string' || typeof source !== 'string' || typeof message !== 'string') continue;
    if (typeof level !== 'string' || !LEVELS.has(level)) continue;
    logs.push([solution.slice(0, 200), source.slice(0, 200), level, message.slice(0, 4000)]);
  }
  return logs;
}

/**
 * The entries of a worker's `calls` report that are what they must be: names of 1-200 characters,
 * a finite duration of zero or more, at most `MAX_CALLS_REPORTED` of each. A worker runs authors'
 * work: what it says is checked before it becomes a metric's label.
 */
export function reportedCalls(report: { calls?: unknown; retries?: unknown }): {
  calls: CallSeen[];
  retries: Array<readonly [string, string]>;
} {
  const name = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200;
  const calls: CallSeen[] = [];
  const retries: Array<readonly [string, string]> = [];
  if (Array.isArray(report.calls)) {
    for (const seen of report.calls.slice(0, MAX_CALLS_REPORTED)) {
      if (!Array.isArray(seen)) continue;
      const [solution, fn, seconds, outcome] = seen as unknown[];
      if (
        name(solution) &&
        name(fn) &&
        name(outcome) &&
        typeof seconds === 'number' &&
        seconds >= 0 &&
        Number.isFinite(seconds)
      )
        calls.push([solution, fn, seconds, outcome]);
    }
  }
  if (Array.isArray(report.retries)) {
    for (const seen of report.retries.slice(0, MAX_CALLS_REPORTED)) {
      if (Array.isArray(seen) && name(seen[0]) && name(seen[1])) retries.push([seen[0], seen[1]]);
    }
  }
  return { calls, retries };
}

/**
 * A worker's cache report, taken only as the plain values it must be (counts of zero or more, at
 * most `MAX_CALLS_REPORTED` solution names): it decides where the pool sends work, never more.
 */
export function reportedCache(report: { cache?: unknown }): CacheReport | undefined {
  const cache = report.cache as Partial<Record<keyof CacheReport, unknown>> | undefined;
  if (typeof cache !== 'object' || cache === null) return undefined;
  const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0);
  const evicted = Array.isArray(cache.evicted)
    ? cache.evicted
        .slice(0, MAX_CALLS_REPORTED)
        .filter((s): s is string => typeof s === 'string' && s.length > 0 && s.length <= 200)
    : [];
  return { hits: count(cache.hits), misses: count(cache.misses), evicted, bytes: count(cache.bytes) };
}

export type FromWorker =
  /** Its code is loaded: it can take work. */
  | { readonly type: 'ready' }
  | { readonly type: 'done'; readonly id: number; readonly value: unknown }
  /** Requests sent and retries decided since the last report (the metrics; at most every 250 ms). */
  | {
      readonly type: 'calls';
      readonly calls: readonly CallSeen[];
      readonly retries: ReadonlyArray<readonly [string, string]>;
      readonly logs?: readonly ScriptLogSeen[];
      /** The solution cache's hits, misses and evictions since the last report, and its size. */
      readonly cache?: CacheReport;
    }
  | { readonly type: 'failed'; readonly id: number; readonly error: WireError }
  /** One page's NDJSON line (`{"page": n, "output": ...}`) as JSON text, made in the worker. */
  | { readonly type: 'page'; readonly id: number; readonly page: number; readonly json: string }
  | {
      readonly type: 'records';
      readonly rid: number;
      readonly solution: string;
      readonly op: RecordsOp;
      readonly key: string;
      readonly arg?: unknown;
      /** Whose connection, for a per-user credential's tokens. */
      readonly user?: string;
    };

/** What a worker is started with. */
export interface WorkerConfig {
  readonly dataDir: string;
  readonly ceilings: Ceilings;
  readonly allowPrivateTargets: boolean;
  readonly allowTargets: Readonly<Record<string, readonly string[]>>;
  /** Incremented by the worker while its event loop turns: the watchdog reads it. */
  readonly heartbeat: SharedArrayBuffer;
  /** Bytes its solution cache may hold (its share of `--solution-cache-mb`). */
  readonly cacheBytes: number;
}

/** An error as it crosses threads: the fields answers and the audit show, nothing else. */
export interface WireError {
  readonly code: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
  /** A failure that is no RestfnError (a bug): its stack, for the log. */
  readonly stack?: string;
}

/** The fields of an error that answers (`errorBody`), the audit and the trace read. */
const SHOWN = [
  'title',
  'description',
  'details',
  'status',
  'correlationId',
  'alert',
  'extra',
  'trace',
  'sent',
  'credential',
] as const;

export function toWire(error: unknown): WireError {
  if (error instanceof RestfnError) {
    const fields: Record<string, unknown> = {};
    for (const name of SHOWN) {
      const value = (error as unknown as Record<string, unknown>)[name];
      if (value !== undefined) fields[name] = value;
    }
    return { code: error.code, message: error.message, fields };
  }
  const e = error as Error | undefined;
  return {
    code: 'INTERNAL',
    message: 'the platform failed unexpectedly; the server log has the details',
    fields: {},
    stack: e?.stack ?? String(error),
  };
}

/**
 * A failure of work done in a worker, on the request thread: its code, message and shown fields
 * as they were. `trace` (a preview's raw exchanges) is kept apart from what `errorBody` shows.
 */
export class ExecutionFailure extends RestfnError {
  readonly stackInWorker: string | undefined;

  constructor(wire: WireError) {
    super(wire.code as ErrorCode, wire.message);
    for (const [name, value] of Object.entries(wire.fields)) {
      Object.defineProperty(this, name, { value, enumerable: name !== 'details', configurable: true });
    }
    this.stackInWorker = wire.stack;
  }
}
