import { describe, expect, it } from 'vitest';
import { encodings } from '../helpers/encodings.js';
import { bytesOf, startPlatformProcess } from '../helpers/platform.js';

const PASSWORD = 'correct-horse-7Kq2';

/** A request with the console's session cookie (and, for changes, its CSRF token). */
async function withCookie(
  url: string,
  method: string,
  path: string,
  cookie: string,
  csrf?: string,
  body?: unknown,
) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      cookie,
      ...(csrf ? { 'x-csrf-token': csrf } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('console sessions', () => {
  it('sign in with a password, a HttpOnly SameSite=Strict cookie, CSRF on every change, sign out', async () => {
    const platform = await startPlatformProcess();
    const admin = platform.adminToken;
    const added = await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'alice', role: 'author', solutions: ['crm'], password: PASSWORD },
    });
    expect(added.status).toBe(201);

    for (const body of [
      { name: 'alice', password: 'wrong-password-000' },
      { name: 'nobody', password: PASSWORD },
    ]) {
      const refused = await platform.api('POST', '/api/v1/session', { body });
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({
        code: 'SIGN_IN_FAILED',
        message: 'the user name or the password is wrong',
      });
      expect(refused.headers.get('set-cookie')).toBeNull();
    }

    const signedIn = await platform.api('POST', '/api/v1/session', {
      body: { name: 'alice', password: PASSWORD },
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toMatchObject({ name: 'alice', role: 'author' });
    const setCookie = signedIn.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^restfn_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).not.toContain('Secure'); // plain http here; https gets Secure
    const cookie = setCookie.split(';')[0]!;
    const csrf = signedIn.body.csrfToken as string;

    expect((await withCookie(platform.url, 'GET', '/api/v1/me', cookie)).body).toMatchObject({
      name: 'alice',
    });
    expect((await withCookie(platform.url, 'GET', '/api/v1/session', cookie)).body.csrfToken).toBe(csrf);
    // A change with the cookie alone, or with a forged token, is refused and changes nothing.
    const credential = { kind: 'secret', value: 'sk-123456789', origins: ['https://api.example.com'] };
    for (const forged of [undefined, 'forged-token', `${csrf}x`]) {
      const answer = await withCookie(
        platform.url,
        'PUT',
        '/api/v1/solutions/crm/credentials/k',
        cookie,
        forged,
        credential,
      );
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('CSRF_INVALID');
    }
    expect(
      (await platform.api('GET', '/api/v1/solutions/crm/credentials', { token: admin })).body.credentials,
    ).toEqual([]);
    const made = await withCookie(
      platform.url,
      'PUT',
      '/api/v1/solutions/crm/credentials/k',
      cookie,
      csrf,
      credential,
    );
    expect(made.status).toBe(201);
    // Roles still decide: alice is no admin.
    expect((await withCookie(platform.url, 'GET', '/api/v1/users', cookie)).status).toBe(403);

    expect((await withCookie(platform.url, 'DELETE', '/api/v1/session', cookie, csrf)).status).toBe(204);
    const after = await withCookie(platform.url, 'GET', '/api/v1/me', cookie);
    expect(after.status).toBe(401);
    expect(after.body.message).toContain('the console session ended: sign in again');

    await platform.stop();
    for (const form of encodings(PASSWORD)) {
      expect(platform.output()).not.toContain(form);
      expect(bytesOf(platform.dataDir)).not.toContain(form);
    }
  });

  it("the console's check: signed out is a 200 answer, not a 401; GET /session keeps its 401", async () => {
    const platform = await startPlatformProcess();
    await platform.api('PATCH', '/api/v1/users/admin', {
      token: platform.adminToken,
      body: { password: PASSWORD },
    });
    const out = await platform.api('GET', '/api/v1/session/state');
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signedIn: false });
    // An API token is not a console session: the state is the cookie's alone.
    expect((await platform.api('GET', '/api/v1/session/state', { token: platform.adminToken })).body).toEqual(
      {
        signedIn: false,
      },
    );
    expect((await platform.api('GET', '/api/v1/session')).status).toBe(401);
    const signedIn = await platform.api('POST', '/api/v1/session', {
      body: { name: 'admin', password: PASSWORD },
    });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const state = await withCookie(platform.url, 'GET', '/api/v1/session/state', cookie);
    expect(state).toEqual({
      status: 200,
      body: {
        signedIn: true,
        user: expect.objectContaining({ name: 'admin', role: 'admin' }),
        csrfToken: signedIn.body.csrfToken,
      },
    });
    await withCookie(platform.url, 'DELETE', '/api/v1/session', cookie, signedIn.body.csrfToken);
    expect((await withCookie(platform.url, 'GET', '/api/v1/session/state', cookie)).body).toEqual({
      signedIn: false,
    });
  });
});
