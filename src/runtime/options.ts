import type { Solution } from '../definition/solution.js';
import { DEFAULT_LIMITS, type ExpressionLimits } from '../expression/limits.js';
import { DEFAULT_HTTP, type HttpOptions } from '../http/options.js';

/** What `createRuntime` accepts: every field optional; the solution's settings apply beneath these. */
export interface RuntimeOptions {
  readonly http?: Partial<HttpOptions>;
  readonly expressions?: Partial<ExpressionLimits>;
  /** `@ctx.user` for every execution, unless the call's context overrides it. */
  readonly user?: Record<string, unknown>;
  /** Most continuation pages one sync follows. @default 1000 */
  readonly maxPages?: number;
}

/** Every field set: defaults, then the solution's `settings`, then the caller's options. */
export interface NormalizedOptions {
  readonly http: HttpOptions;
  readonly expressions: ExpressionLimits;
  readonly user: Record<string, unknown>;
  readonly maxPages: number;
}

export function normalizeOptions(solution: Solution, options: RuntimeOptions = {}): NormalizedOptions {
  const settings = solution.settings?.definition?.settings;
  return {
    http: { ...DEFAULT_HTTP, ...settings?.http, ...options.http },
    expressions: { ...DEFAULT_LIMITS, ...settings?.expressions, ...options.expressions },
    user: options.user ?? {},
    maxPages: options.maxPages ?? settings?.sync?.maxPages ?? 1000,
  };
}
