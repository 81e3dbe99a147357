import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { DEFAULT_RETRY, decideRetry, type Failure, type RetryInput } from '../../src/errors/retry.js';
import { parseRetryAfter } from '../../src/errors/retry-after.js';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

describe('parseRetryAfter', () => {
  test.each([
    ['120', 120_000],
    ['0', 0],
    [' 7 ', 7000],
    ['Sat, 21 Nov 2026 12:00:30 GMT', 30_000],
    ['Sat, 21 Nov 2026 11:00:00 GMT', 0],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['', undefined],
    // The two obsolete forms RFC 9110 5.6.7 requires recipients to accept.
    ['Saturday, 21-Nov-26 12:00:30 GMT', 30_000],
    ['Sat Nov 21 12:00:30 2026', 30_000],
    ['Sun Nov  1 12:00:00 2026', 0],
    // RFC 850's two-digit year: more than 50 years ahead means the century before.
    ['Friday, 21-Nov-80 12:00:30 GMT', 0],
    ['Tuesday, 21-Nov-75 12:00:30 GMT', Date.UTC(2075, 10, 21, 12, 0, 30) - NOW],
    ['Saturday, 21-Nov-26 12:00:30 UTC', undefined],
    ['Sat, 21-Nov-26 12:00:30 GMT', undefined],
    ['Sat Nov 21 12:00:30 2026 GMT', undefined],
    ['Sat Nov 31 12:00:30 2026', undefined],
    ['Sat, 31 Feb 2026 12:00:30 GMT', undefined],
    ['Sat, 21 Nov 2026 25:00:30 GMT', undefined],
    [undefined, undefined],
  ])('%s -> %s', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  test('seconds: any whole number of seconds is that many milliseconds (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9_999_999 }),
        (s) => parseRetryAfter(String(s), NOW) === s * 1000,
      ),
    );
  });

  test('dates: any instant written as an HTTP date is its distance from now, never negative (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: NOW - 10 ** 10, max: NOW + 10 ** 10 }), (at) => {
        const whole = Math.floor(at / 1000) * 1000;
        const date = new Date(whole);
        const expected = Math.max(0, whole - NOW);
        // The same instant in asctime form, written independently of the parser.
        const [weekday, day, month, year, time] = date.toUTCString().replace(',', '').split(' ');
        const asctime = `${weekday} ${month} ${String(Number(day)).padStart(2, ' ')} ${time} ${year}`;
        return (
          parseRetryAfter(date.toUTCString(), NOW) === expected && parseRetryAfter(asctime, NOW) === expected
        );
      }),
    );
  });

  test('anything else is undefined, never a throw or a negative delay (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const ms = parseRetryAfter(text, NOW);
        return ms === undefined || (Number.isInteger(ms) && ms >= 0);
      }),
    );
  });
});

const failure = fc.oneof(
  fc.record({
    kind: fc.constant('status' as const),
    status: fc.integer({ min: 400, max: 599 }),
    retryAfterMs: fc.option(fc.integer({ min: 0, max: 10 ** 9 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constantFrom('network' as const, 'timeout' as const, 'other' as const) }),
) as fc.Arbitrary<Failure>;

const input: fc.Arbitrary<RetryInput> = fc.record({
  retries: fc.integer({ min: 0, max: 10 }),
  method: fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE', 'POST', 'PATCH'),
  failure,
  handler: fc.option(
    fc.record({
      retry: fc.option(
        fc.record({
          delayMs: fc.integer({ min: 0, max: 10 ** 6 }),
          maxRetries: fc.integer({ min: 0, max: 5 }),
        }),
        {
          nil: undefined,
        },
      ),
    }),
    { nil: undefined },
  ),
  canRefreshToken: fc.boolean(),
  defaults: fc.constant(DEFAULT_RETRY),
}) as fc.Arbitrary<RetryInput>;

describe('decideRetry', () => {
  test('never retries past the applicable limit, never with a negative delay (property)', () => {
    fc.assert(
      fc.property(input, (i) => {
        const d = decideRetry(i);
        if (!d.retry) return true;
        const limit = i.handler
          ? (i.handler.retry?.maxRetries ?? 0)
          : i.failure.kind === 'status' && i.failure.status === 429
            ? DEFAULT_RETRY.rateLimitRetries
            : i.failure.kind === 'status'
              ? DEFAULT_RETRY.unauthorizedRetries
              : DEFAULT_RETRY.networkRetries;
        return i.retries < limit && d.delayMs >= 0;
      }),
    );
  });

  test('a matching handler decides alone; unknown failures and non-idempotent network failures never retry (property)', () => {
    fc.assert(
      fc.property(input, (i) => {
        const d = decideRetry(i);
        if (i.handler && !i.handler.retry) return !d.retry;
        if (i.handler?.retry) return d.retry === i.retries < i.handler.retry.maxRetries;
        if (i.failure.kind === 'other') return !d.retry;
        if (i.failure.kind !== 'status' && ['POST', 'PATCH'].includes(i.method)) return !d.retry;
        return true;
      }),
    );
  });

  test('429 waits what the server asks, capped; 401 retries only with a token to refresh', () => {
    const base = { retries: 0, method: 'POST', canRefreshToken: false, defaults: DEFAULT_RETRY };
    expect(
      decideRetry({ ...base, failure: { kind: 'status', status: 429, retryAfterMs: undefined } }),
    ).toMatchObject({ retry: true, delayMs: 5000 });
    expect(
      decideRetry({ ...base, failure: { kind: 'status', status: 429, retryAfterMs: 2000 } }),
    ).toMatchObject({ delayMs: 2000 });
    expect(
      decideRetry({ ...base, failure: { kind: 'status', status: 429, retryAfterMs: 10 ** 8 } }),
    ).toMatchObject({ delayMs: 60_000 });
    expect(
      decideRetry({ ...base, retries: 3, failure: { kind: 'status', status: 429, retryAfterMs: undefined } }),
    ).toMatchObject({ retry: false });
    expect(
      decideRetry({ ...base, failure: { kind: 'status', status: 401, retryAfterMs: undefined } }),
    ).toMatchObject({ retry: false });
    expect(
      decideRetry({
        ...base,
        canRefreshToken: true,
        failure: { kind: 'status', status: 401, retryAfterMs: undefined },
      }),
    ).toMatchObject({ retry: true, refreshToken: true, delayMs: 0 });
    expect(
      decideRetry({ ...base, failure: { kind: 'status', status: 500, retryAfterMs: undefined } }),
    ).toMatchObject({ retry: false });
    expect(decideRetry({ ...base, method: 'GET', retries: 1, failure: { kind: 'network' } })).toMatchObject({
      retry: true,
      delayMs: 2000,
    });
  });
});

describe("an error handler's retry held to the platform's ceilings", () => {
  const ceilings = { ...DEFAULT_RETRY, handlerMaxRetries: 10, handlerMinDelayMs: 100 };
  const status500: Failure = { kind: 'status', status: 500, retryAfterMs: undefined };
  const decide = (retries: number, retry: { delayMs: number; maxRetries: number }, defaults = ceilings) =>
    decideRetry({
      retries,
      method: 'POST',
      failure: status500,
      handler: { retry },
      canRefreshToken: false,
      defaults,
    });

  test('maxRetries is capped down and delay raised to the floor', () => {
    const flood = { delayMs: 0, maxRetries: 100_000 };
    expect(decide(0, flood)).toMatchObject({ retry: true, delayMs: 100 });
    expect(decide(9, flood)).toMatchObject({ retry: true });
    expect(decide(10, flood)).toMatchObject({ retry: false });
    expect((decide(10, flood) as { reason: string }).reason).toContain("this platform's ceiling");
    // Within the ceilings the handler's own values apply.
    expect(decide(0, { delayMs: 2500, maxRetries: 2 })).toMatchObject({ retry: true, delayMs: 2500 });
    expect(decide(2, { delayMs: 2500, maxRetries: 2 })).toMatchObject({ retry: false });
  });

  test('a library runtime has no ceilings: the handler decides alone', () => {
    expect(decide(5000, { delayMs: 0, maxRetries: 100_000 }, DEFAULT_RETRY)).toMatchObject({
      retry: true,
      delayMs: 0,
    });
  });

  test("the defaults' own retries are not held to them (429 waits what the server asks, 401 at once)", () => {
    const base = { retries: 0, method: 'GET', canRefreshToken: true, defaults: ceilings };
    expect(decideRetry({ ...base, failure: { kind: 'status', status: 429, retryAfterMs: 0 } })).toMatchObject(
      { retry: true, delayMs: 0 },
    );
    expect(
      decideRetry({ ...base, failure: { kind: 'status', status: 401, retryAfterMs: undefined } }),
    ).toMatchObject({ retry: true, delayMs: 0, refreshToken: true });
  });

  test('never more retries than the ceiling, never a shorter wait than the floor (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.record({
          delayMs: fc.integer({ min: 0, max: 10 ** 6 }),
          maxRetries: fc.integer({ min: 0, max: 10 ** 6 }),
        }),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 0, max: 5000 }),
        (retries, retry, maxRetries, minDelay) => {
          const d = decide(retries, retry, {
            ...DEFAULT_RETRY,
            handlerMaxRetries: maxRetries,
            handlerMinDelayMs: minDelay,
          });
          if (!d.retry) return retries >= Math.min(retry.maxRetries, maxRetries);
          return (
            retries < maxRetries &&
            retries < retry.maxRetries &&
            d.delayMs >= minDelay &&
            d.delayMs >= retry.delayMs
          );
        },
      ),
    );
  });
});
