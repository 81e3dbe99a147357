/** Outbound HTTP settings; `settings.http` in solution.yaml and the runtime options override them. */
export interface HttpOptions {
  /** @default 10000 */
  readonly connectTimeoutMs: number;
  /** @default 30000 */
  readonly headersTimeoutMs: number;
  /** Longest pause between body chunks. @default 30000 */
  readonly bodyTimeoutMs: number;
  /**
   * Longest time for one request as a whole: connecting, redirects, headers and the whole body. The
   * other timeouts bound a single wait, so a service sending one byte every few seconds would
   * otherwise keep a request open forever. @default 120000
   */
  readonly requestTimeoutMs: number;
  /** Largest response body, in bytes; reading stops there (RESPONSE_TOO_LARGE). @default 52428800 (50 MB) */
  readonly maxResponseBytes: number;
  /** Deepest nesting of a JSON or XML response (RESPONSE_TOO_DEEP). @default 256 */
  readonly maxResponseDepth: number;
  /** @default 5 */
  readonly maxRedirections: number;
  /** Upper bound on pooled connections per origin. @default 64 */
  readonly connections: number;
}

export const DEFAULT_HTTP: HttpOptions = Object.freeze({
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  requestTimeoutMs: 120_000,
  maxResponseBytes: 50 * 1024 * 1024,
  maxResponseDepth: 256,
  maxRedirections: 5,
  connections: 64,
});

/**
 * The deepest `maxResponseDepth` a solution may set: SQLite's JSON functions refuse deeper
 * documents, and records are stored as JSON.
 */
export const MAX_RESPONSE_DEPTH_CEILING = 1000;
