/** What went wrong on one attempt, as the retry decision needs it. */
export type Failure =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterMs: number | undefined }
  | { readonly kind: 'network' | 'timeout' }
  | { readonly kind: 'other' };

export interface RetryDefaults {
  /** 429: retries and delay when the server gives no usable Retry-After (spec 7.5 rule 1). */
  readonly rateLimitRetries: number;
  readonly rateLimitDelayMs: number;
  /** Longest wait a server may ask for with Retry-After; longer asks are capped. */
  readonly maxServerDelayMs: number;
  /** 401 (spec 7.5 rule 2): retries, each after a token refresh. */
  readonly unauthorizedRetries: number;
  /** Network failures and timeouts of idempotent methods: retries, first delay (doubling). */
  readonly networkRetries: number;
  readonly networkDelayMs: number;
  /**
   * Ceilings over what an error handler's `retry` asks (the platform's `--max-retries` and
   * `--min-retry-delay-ms`): its `maxRetries` capped down, its `delay` raised to the floor. The
   * defaults' own retries above are not held to them. A library runtime has none (Infinity, 0).
   */
  readonly handlerMaxRetries: number;
  readonly handlerMinDelayMs: number;
}

export const DEFAULT_RETRY: RetryDefaults = Object.freeze({
  rateLimitRetries: 3,
  rateLimitDelayMs: 5000,
  maxServerDelayMs: 60_000,
  unauthorizedRetries: 3,
  networkRetries: 2,
  networkDelayMs: 1000,
  handlerMaxRetries: Number.POSITIVE_INFINITY,
  handlerMinDelayMs: 0,
});

export interface RetryInput {
  /** Retries already made (0 after the first attempt). */
  readonly retries: number;
  readonly method: string;
  readonly failure: Failure;
  /** The matching custom handler, if any: its `retry` (already evaluated) overrides the defaults. */
  readonly handler?: { readonly retry?: { readonly delayMs: number; readonly maxRetries: number } };
  /** True when the function can refresh a token (it uses OAuth and `disableTokenRefresh` is not set). */
  readonly canRefreshToken: boolean;
  readonly defaults: RetryDefaults;
}

export type RetryDecision =
  | { readonly retry: false; readonly reason: string }
  | {
      readonly retry: true;
      readonly delayMs: number;
      readonly refreshToken: boolean;
      readonly reason: string;
    };

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * Whether to retry, as one ordered chain of guards: the first that applies decides. Unknown
 * failures are never retried.
 */
export function decideRetry(input: RetryInput): RetryDecision {
  const { retries, failure, handler, defaults } = input;
  const stop = (reason: string): RetryDecision => ({ retry: false, reason });
  const again = (delayMs: number, reason: string, refreshToken = false): RetryDecision => ({
    retry: true,
    delayMs: Math.max(0, delayMs),
    refreshToken,
    reason,
  });

  // 1. A matching custom handler decides alone: its retry block (held to the ceilings), or no
  // retry at all.
  if (handler) {
    if (!handler.retry) return stop('the matching error handler has no retry');
    const { maxRetries, delayMs } = heldToCeilings(handler.retry, defaults);
    if (retries >= maxRetries)
      return stop(
        maxRetries < handler.retry.maxRetries
          ? `the handler's retries are used up (${maxRetries}: this platform's ceiling, the handler asked ${handler.retry.maxRetries})`
          : `the handler's ${maxRetries} retries are used up`,
      );
    return again(delayMs, 'error handler retry');
  }
  if (failure.kind === 'status') {
    // 2. Rate limited: the server's Retry-After (capped), else the default delay.
    if (failure.status === 429) {
      if (retries >= defaults.rateLimitRetries) return stop(`429 after ${defaults.rateLimitRetries} retries`);
      const delay =
        failure.retryAfterMs === undefined
          ? defaults.rateLimitDelayMs
          : Math.min(failure.retryAfterMs, defaults.maxServerDelayMs);
      return again(delay, '429 Too Many Requests');
    }
    // 3. Unauthorized: only worth retrying with a fresh token.
    if (failure.status === 401) {
      if (!input.canRefreshToken) return stop('401 and no token to refresh');
      if (retries >= defaults.unauthorizedRetries)
        return stop(`401 after ${defaults.unauthorizedRetries} refreshes`);
      return again(0, '401 Unauthorized: refreshing the token', true);
    }
    return stop(`status ${failure.status} is not retried by default`);
  }
  // 4. No answer: retried only where repeating the request cannot do harm.
  if (failure.kind === 'network' || failure.kind === 'timeout') {
    if (!IDEMPOTENT.has(input.method)) return stop(`${input.method} is not idempotent`);
    if (retries >= defaults.networkRetries)
      return stop(`${failure.kind} failure after ${defaults.networkRetries} retries`);
    return again(defaults.networkDelayMs * 2 ** retries, `${failure.kind} failure`);
  }
  return stop('unknown failures are not retried');
}

/**
 * An error handler's retry held to the ceilings: at most `handlerMaxRetries` retries, each after at
 * least `handlerMinDelayMs`. A value that is not a number (an expression's) counts as none: no
 * retry, no wait below the floor.
 */
export function heldToCeilings(
  retry: { readonly delayMs: number; readonly maxRetries: number },
  defaults: Pick<RetryDefaults, 'handlerMaxRetries' | 'handlerMinDelayMs'>,
): { delayMs: number; maxRetries: number } {
  const maxRetries = Number.isNaN(retry.maxRetries) ? 0 : retry.maxRetries;
  const delayMs = Number.isNaN(retry.delayMs) ? 0 : retry.delayMs;
  return {
    maxRetries: Math.min(maxRetries, defaults.handlerMaxRetries),
    delayMs: Math.max(delayMs, defaults.handlerMinDelayMs),
  };
}
