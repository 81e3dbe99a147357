import type { Solution } from '../definition/solution.js';
import type { Clock } from '../errors/clock.js';
import { SYSTEM_CLOCK } from '../errors/clock.js';
import { DEFAULT_RETRY, type RetryDefaults } from '../errors/retry.js';
import { DEFAULT_LIMITS, type ExpressionLimits } from '../expression/limits.js';
import { DEFAULT_SCRIPT_LIMITS, type ScriptLimits } from '../expression/scripts/sandbox.js';
import { DEFAULT_HTTP, type HttpOptions } from '../http/options.js';
import type { SystemSettings } from './system-context.js';

/** What `createRuntime` accepts: every field optional; the solution's settings apply beneath these. */
export interface RuntimeOptions {
  readonly http?: Partial<HttpOptions>;
  readonly expressions?: Partial<ExpressionLimits>;
  /**
   * `@ctx.user` for every execution (`id`, `email`, `displayName`, ...), over the solution's
   * `settings.user`, unless the call's context overrides it.
   */
  readonly user?: Record<string, unknown>;
  /** Most continuation pages one sync follows. @default 1000 */
  readonly maxPages?: number;
  /**
   * Most requests one execution sends, retries, redirects and its guards' counted; its pages share
   * them, each continuation page adding its own first request (see `RequestBudget`); past it,
   * `REQUEST_LIMIT`. The platform sets it.
   * @default Infinity
   */
  readonly maxRequestsPerExecution?: number;
  /** Longest `execute` (guard, retries and waits included), in ms. @default 300000 */
  readonly executionTimeoutMs?: number;
  /** Longest `sync` of one datasource (every entity, page and retry), in ms. @default 3600000 */
  readonly syncTimeoutMs?: number;
  /** The user's locale, for localised error texts (the CLI passes LANG's). @default 'en' */
  readonly locale?: string;
  /** Retry defaults (spec 7.5); tests shorten them. */
  readonly retry?: Partial<RetryDefaults>;
  /** Time for retry delays and alert grouping; tests inject one that records instead of waiting. */
  readonly clock?: Clock;
  /** Limits of the solution's expression scripts. */
  readonly scripts?: Partial<ScriptLimits>;
  /**
   * Scrub credential values a service echoes from its answer before any transform, handler or
   * caller sees it (the platform: a credential never reaches the caller, reshaped or not). The
   * device keeps answers as the service sent them. @default false
   */
  readonly maskOutput?: boolean;
  /** Told of every request sent and every retry decided: the platform's metrics. */
  readonly observer?: CallObserver;
  /** `@ctx.solution.id` (the platform gives its own). @default solution.yaml's `id`, else its name */
  readonly solutionId?: string;
  /** `@ctx.organization`, over solution.yaml's `organization`. */
  readonly organization?: { readonly id?: string; readonly name?: string };
  /**
   * `@ctx.system`'s time zone and locale (a call's context may give its own). @default the
   * process's time zone, and `locale`
   */
  readonly system?: SystemSettings;
}

/**
 * Called synchronously on the call path (it must be quick and must not throw). A `call` is one
 * request (redirects followed included): its seconds, and the status answered or the code of the
 * failure that left no answer (TIMEOUT, NETWORK_ERROR...).
 */
export interface CallObserver {
  call(fn: string, seconds: number, outcome: string): void;
  retry(fn: string): void;
}

/** Every field set: defaults, then the solution's `settings`, then the caller's options. */
export interface NormalizedOptions {
  readonly http: HttpOptions;
  readonly expressions: ExpressionLimits;
  readonly user: Record<string, unknown>;
  readonly maxPages: number;
  readonly maxRequestsPerExecution: number;
  readonly executionTimeoutMs: number;
  readonly syncTimeoutMs: number;
  readonly locale: string;
  readonly retry: RetryDefaults;
  readonly clock: Clock;
  readonly scripts: ScriptLimits;
  readonly maskOutput: boolean;
  readonly observer: CallObserver | undefined;
  /** What `@ctx` says of the solution, its organization and the system (context.ts). */
  readonly about: ContextAbout;
}

/** The runtime's part of `@ctx.solution`, `@ctx.organization` and `@ctx.system`. */
export interface ContextAbout {
  readonly solutionId: string;
  readonly organization: { readonly id?: string; readonly name?: string };
  readonly system: SystemSettings;
}

export function normalizeOptions(solution: Solution, options: RuntimeOptions = {}): NormalizedOptions {
  const settings = solution.settings?.definition?.settings;
  const { maxResponseMb, ...http } = settings?.http ?? {};
  return {
    http: {
      ...DEFAULT_HTTP,
      ...setOnly(http),
      ...(maxResponseMb == null ? {} : { maxResponseBytes: Math.round(maxResponseMb * 1024 * 1024) }),
      ...setOnly(options.http),
    },
    expressions: { ...DEFAULT_LIMITS, ...setOnly(settings?.expressions), ...setOnly(options.expressions) },
    user: { ...setOnly(settings?.user), ...setOnly(options.user) },
    maxPages: options.maxPages ?? settings?.sync?.maxPages ?? 1000,
    maxRequestsPerExecution: options.maxRequestsPerExecution ?? Number.POSITIVE_INFINITY,
    executionTimeoutMs: options.executionTimeoutMs ?? settings?.execution?.timeoutMs ?? 300_000,
    syncTimeoutMs: options.syncTimeoutMs ?? settings?.sync?.timeoutMs ?? 3_600_000,
    locale: options.locale || 'en',
    retry: { ...DEFAULT_RETRY, ...setOnly(options.retry) },
    clock: options.clock ?? SYSTEM_CLOCK,
    maskOutput: options.maskOutput === true,
    observer: options.observer,
    about: {
      solutionId: options.solutionId ?? solution.settings?.definition?.id ?? solution.name,
      organization: {
        ...setOnly(solution.settings?.definition?.organization),
        ...setOnly(options.organization),
      },
      system: { locale: options.locale, ...setOnly(options.system) },
    },
    scripts: {
      timeoutMs:
        options.scripts?.timeoutMs ?? settings?.scripts?.timeoutMs ?? DEFAULT_SCRIPT_LIMITS.timeoutMs,
      memoryBytes:
        options.scripts?.memoryBytes ??
        (settings?.scripts?.memoryLimitMb == null
          ? DEFAULT_SCRIPT_LIMITS.memoryBytes
          : settings.scripts.memoryLimitMb * 1024 * 1024),
    },
  };
}

/**
 * The entries that are set: an `undefined` (and a `null`, as JSON or a database row gives for "not
 * set") never overrides a default underneath.
 */
export function setOnly<T extends object>(values: T | undefined | null): Partial<T> {
  const out: Partial<T> = {};
  if (!values) return out;
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null) out[key as keyof T] = value;
  }
  return out;
}
