import { describe, expect, it } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { DEFAULT_RETRY } from '../../src/errors/retry.js';
import { DEFAULT_LIMITS } from '../../src/expression/limits.js';
import { DEFAULT_HTTP } from '../../src/http/options.js';
import { normalizeOptions } from '../../src/runtime/options.js';
import { tempSolution } from '../helpers/temp-solution.js';

describe('normalizeOptions', () => {
  it('undefined and null from a caller (JSON, a database row) never override a default', () => {
    const solution = loadSolution(
      tempSolution({
        'functions/a.platform': 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://127.0.0.1/\n',
      }),
    );
    const options = normalizeOptions(solution, {
      http: { requestTimeoutMs: undefined, maxResponseBytes: null as unknown as number },
      expressions: { timeoutMs: undefined },
      retry: { rateLimitDelayMs: null as unknown as number, networkRetries: 0 },
      user: { id: 'u-1', email: null as unknown as string },
      locale: undefined,
    });
    expect(options.http.requestTimeoutMs).toBe(DEFAULT_HTTP.requestTimeoutMs);
    expect(options.http.maxResponseBytes).toBe(DEFAULT_HTTP.maxResponseBytes);
    expect(options.expressions.timeoutMs).toBe(DEFAULT_LIMITS.timeoutMs);
    expect(options.retry).toEqual({ ...DEFAULT_RETRY, networkRetries: 0 });
    expect(options.user).toEqual({ id: 'u-1' });
    expect(options.locale).toBe('en');
  });

  it('the library reads no environment: LANG does not decide the locale, the caller does', () => {
    const solution = loadSolution(tempSolution({}));
    const saved = process.env.LANG;
    process.env.LANG = 'de_CH.UTF-8';
    try {
      expect(normalizeOptions(solution).locale).toBe('en');
      expect(normalizeOptions(solution, { locale: 'fr_FR' }).locale).toBe('fr_FR');
    } finally {
      if (saved === undefined) delete process.env.LANG;
      else process.env.LANG = saved;
    }
  });
});
