import type { RetryDefaults } from './retry.js';

/** How a queued command's call ended, as far as the queue's decision needs it. */
export type CommandFailure =
  | { readonly kind: 'network' | 'timeout' | 'credentials' | 'other' | 'unresolved' }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly retryAfterMs: number | undefined;
      /** The matching error handler, if one matched: whether it has a retry. */
      readonly handler?: { readonly retries: boolean };
    };

export type CommandVerdict =
  | {
      readonly state: 'waiting';
      /** Wait before an automatic push sends it again; undefined: at the next push. */
      readonly delayMs: number | undefined;
      /** Every later command would fail the same way (offline, no login): stop this push. */
      readonly stopPush: boolean;
      readonly reason: string;
    }
  | { readonly state: 'failed'; readonly reason: string };

/**
 * What becomes of a command whose call failed after the call's own retries (spec 7.5; see
 * `decideRetry`), as one ordered chain: transient failures wait (the command is sent again later,
 * with the same idempotency key), definitive ones fail (the command stays, with its error, and holds
 * back the record's later commands until retried or deleted). `attempts` counts this one.
 */
export function decideCommandFailure(
  failure: CommandFailure,
  attempts: number,
  defaults: RetryDefaults,
): CommandVerdict {
  const backoff = Math.min(
    defaults.networkDelayMs * 2 ** Math.max(0, attempts - 1),
    defaults.maxServerDelayMs,
  );
  const wait = (delayMs: number | undefined, reason: string, stopPush = false): CommandVerdict => ({
    state: 'waiting',
    delayMs,
    stopPush,
    reason,
  });
  const fail = (reason: string): CommandVerdict => ({ state: 'failed', reason });
  switch (failure.kind) {
    // 1. Without a login no command can go: all wait for the next push after one.
    case 'credentials':
      return wait(undefined, 'the credential is missing or needs a login', true);
    // 2. Offline: nothing else will get through either.
    case 'network':
      return wait(backoff, 'the service could not be reached', true);
    case 'timeout':
      return wait(backoff, 'the service did not answer in time');
    case 'other':
      return fail('the call failed before an answer (definition, expression or request)');
    case 'unresolved':
      return fail('it refers to a record created offline that never got a real id');
    case 'status': {
      // 3. A matching handler decides, and its retries (spec 7.4) were made by the call itself: the
      // failure reaching the queue is final, as it is for a direct call. Waiting for a later push
      // would give the handler a fresh set of retries every time, so maxRetries would never end.
      if (failure.handler) {
        return fail(
          failure.handler.retries
            ? "the matching error handler's retries are used up"
            : 'the matching error handler has no retry',
        );
      }
      // 4. Rate limited or a server error: try again later.
      if (failure.status === 429) {
        const delay =
          failure.retryAfterMs === undefined
            ? defaults.rateLimitDelayMs
            : Math.min(failure.retryAfterMs, defaults.maxServerDelayMs);
        return wait(delay, '429 Too Many Requests');
      }
      if (failure.status >= 500) return wait(backoff, `the service answered ${failure.status}`);
      // 5. Any other error status is the request's own fault: sending it again cannot help.
      return fail(`the service answered ${failure.status}`);
    }
  }
}
