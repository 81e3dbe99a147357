import { describe, expect, it } from 'vitest';
import { startPlatformProcess } from '../helpers/platform.js';

// GET /api/v1/session/state (issue 38) answers without a permission: what it says, and that no
// answer of the API carrying a session's CSRF token or a new token is kept by a cache.

const PASSWORD = 'correct-horse-7Kq2';

describe('session/state and the API answers that carry secrets', () => {
  it('says only signedIn: false without a live session, and no answer with a secret is stored by a cache', async () => {
    const platform = await startPlatformProcess();
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'alice', role: 'author', solutions: ['crm'], password: PASSWORD },
    });
    const state = (cookie?: string, token?: string) =>
      fetch(`${platform.url}/api/v1/session/state`, {
        headers: { ...(cookie ? { cookie } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
    // No cookie, a made-up one, or an API token (not a console session): the same answer.
    for (const answer of [
      await state(),
      await state('restfn_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
      await state(undefined, admin),
    ]) {
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ signedIn: false });
    }
    const signedIn = await platform.api('POST', '/api/v1/session', {
      body: { name: 'alice', password: PASSWORD },
    });
    expect(signedIn.headers.get('cache-control')).toBe('no-store');
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const live = await state(cookie);
    expect(live.headers.get('cache-control')).toBe('no-store');
    expect(await live.json()).toMatchObject({ signedIn: true, csrfToken: signedIn.body.csrfToken });
    const made = await platform.api('POST', '/api/v1/users/alice/tokens', { token: admin, body: {} });
    expect(made.body.token).toMatch(/^rfn_/);
    expect(made.headers.get('cache-control')).toBe('no-store');
    // The console's own files keep their caching.
    expect((await fetch(`${platform.url}/`)).headers.get('cache-control')).toBe('no-cache');
  });
});
