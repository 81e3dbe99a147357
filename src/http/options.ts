/** Outbound HTTP settings; `settings.http` in solution.yaml and the runtime options override them. */
export interface HttpOptions {
  /** @default 10000 */
  readonly connectTimeoutMs: number;
  /** @default 30000 */
  readonly headersTimeoutMs: number;
  /** Longest pause between body chunks. @default 30000 */
  readonly bodyTimeoutMs: number;
  /** @default 5 */
  readonly maxRedirections: number;
  /** Upper bound on pooled connections per origin. @default 64 */
  readonly connections: number;
}

export const DEFAULT_HTTP: HttpOptions = Object.freeze({
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  maxRedirections: 5,
  connections: 64,
});
