import { PlatformError } from '../errors.js';
import type { Counters } from '../rate-limit-counters.js';

/** Sign-in attempts of one account from one address, per minute. */
export const SIGN_IN_PER_MINUTE = 10;
/**
 * Failed sign-ins of one account from one address within 10 minutes. The first minute's attempts
 * count too, so after 10 failures the next 10 are spread over the rest of the 10 minutes: the
 * window grows for an address that keeps guessing.
 */
export const SIGN_IN_FAILURES_PER_10_MINUTES = 20;

/**
 * The console's sign-in limit, keyed by account name and client address whatever else the request
 * carries (a made-up Authorization header once gave every guess a fresh window). Over it the answer
 * is 429 with Retry-After at once; the address's other requests are not affected, and another
 * address (the account's owner) is not locked out by a guesser.
 */
export class SignInLimit {
  constructor(private readonly counters: Counters) {}

  /** Counts an attempt; throws RATE_LIMITED when this account from this address has had enough. */
  attempt(name: string, address: string): void {
    const failures = this.counters.peek(failuresKey(name, address));
    if (failures.current >= SIGN_IN_FAILURES_PER_10_MINUTES) throw refused(failures.ttl);
    const attempts = this.counters.hit(attemptsKey(name, address), 60_000);
    if (attempts.current > SIGN_IN_PER_MINUTE) throw refused(attempts.ttl);
  }

  /** Counts a failure toward the longer window. */
  failed(name: string, address: string): void {
    this.counters.hit(failuresKey(name, address), 600_000);
  }
}

const attemptsKey = (name: string, address: string) => `sign-in|${address}|${name.toLowerCase()}`;
const failuresKey = (name: string, address: string) => `sign-in-failed|${address}|${name.toLowerCase()}`;

function refused(ttlMs: number): PlatformError {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return new PlatformError(
    'RATE_LIMITED',
    `too many sign-in attempts for this account from this address; try again in ${seconds} s`,
    undefined,
    seconds,
  );
}
