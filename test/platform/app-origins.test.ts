import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestBrowser } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { authServer, CLIENT_ID, CLIENT_SECRET } from '../helpers/oauth-server.js';
import { functionFile, solutionWithKey, startPlatformProcess } from '../helpers/platform.js';

const APP = 'https://app.example';
const OTHER = 'https://evil.example';

/** A request as a page of `origin` makes it (Node's fetch sends the Origin header it is given). */
async function from(
  origin: string,
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      origin,
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

/** What a browser sends before a cross-origin POST with a token and a JSON body. */
function preflight(origin: string, url: string, method = 'POST') {
  return from(origin, url, {
    method: 'OPTIONS',
    headers: {
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type',
    },
  });
}

/** A platform listing APP, with solution `s` whose function `rest-get-items` calls a local server. */
async function setUp(args: string[] = []) {
  const remote = await testServer((_req, res) => json(res, 200, { items: [{ id: 'c-1' }] }));
  const platform = await startPlatformProcess({
    args: ['--allow-private-targets', '--app-origin', APP, ...args],
  });
  const { user } = await solutionWithKey(
    platform,
    { 'functions/rest-get-items.platform': functionFile(`${remote.url}/items`) },
    { secret: 'unused-secret', origins: [remote.url] },
  );
  return { platform, user };
}

describe('CORS for app origins (--app-origin)', () => {
  it('a listed origin is answered with its allow-origin, preflights too; another origin gets no CORS headers', async () => {
    const { platform, user } = await setUp();
    expect(platform.output()).toContain(`pages of these origins may call the API: ${APP}`);
    const callUrl = `${platform.url}/api/v1/solutions/s/functions/rest-get-items/call`;

    const asked = await preflight(APP, callUrl);
    expect(asked.status).toBe(204);
    expect(asked.headers.get('access-control-allow-origin')).toBe(APP);
    expect(asked.headers.get('vary')).toMatch(/origin/i);
    expect(asked.headers.get('access-control-allow-methods')).toContain('POST');
    expect(asked.headers.get('access-control-allow-headers')).toMatch(/Authorization.*Content-Type/);
    expect(Number(asked.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(asked.headers.get('access-control-allow-credentials')).toBeNull();

    const called = await from(APP, callUrl, { method: 'POST', token: user, body: { values: {} } });
    expect(called.status, called.text).toBe(200);
    expect(JSON.parse(called.text)).toMatchObject({ status: 200, body: { items: [{ id: 'c-1' }] } });
    expect(called.headers.get('access-control-allow-origin')).toBe(APP);
    expect(called.headers.get('access-control-expose-headers')).toContain('Retry-After');
    expect(called.headers.get('access-control-allow-credentials')).toBeNull();
    const read = await from(APP, `${platform.url}/api/v1/solutions/s`, { token: user });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(APP);

    // Another origin: its preflight is refused and nothing says it may read an answer.
    const refused = await preflight(OTHER, callUrl);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(JSON.parse(refused.text).message).toContain('--app-origin');
    const other = await from(OTHER, `${platform.url}/api/v1/solutions/s`, { token: user });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // The platform's own pages (no Origin on a GET) are answered as before.
    expect((await platform.api('GET', '/api/v1/solutions/s', { token: user })).status).toBe(200);
  });

  it('refusals carry the CORS headers (401, 403, 404), so the app can read why', async () => {
    const { platform, user } = await setUp();
    const unknown = await from(APP, `${platform.url}/api/v1/solutions/s`, { token: 'not-a-token' });
    expect(unknown.status).toBe(401);
    expect(JSON.parse(unknown.text).code).toBe('AUTH_REQUIRED');
    expect(unknown.headers.get('access-control-allow-origin')).toBe(APP);
    const forbidden = await from(APP, `${platform.url}/api/v1/users`, { token: user });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('access-control-allow-origin')).toBe(APP);
    const missing = await from(APP, `${platform.url}/api/v1/nothing-here`, { token: user });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('a rate-limited answer (429) carries them too, and exposes Retry-After', async () => {
    const { platform, user } = await setUp(['--rate-limit', '3']);
    let last = await from(APP, `${platform.url}/api/v1/solutions/s`, { token: user });
    for (let i = 0; i < 5 && last.status !== 429; i++) {
      last = await from(APP, `${platform.url}/api/v1/solutions/s`, { token: user });
    }
    expect(last.status).toBe(429);
    expect(last.headers.get('access-control-allow-origin')).toBe(APP);
    expect(last.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(last.headers.get('access-control-expose-headers')).toContain('Retry-After');
  });

  it("the console's sign-in and session are never CORS answers, even to a listed origin", async () => {
    const { platform } = await setUp();
    const signIn = await preflight(APP, `${platform.url}/api/v1/session`);
    expect(signIn.headers.get('access-control-allow-origin')).toBeNull();
    expect(signIn.status).not.toBe(204);
    // Nor the same path spelled another way (the router decodes it).
    const encoded = await preflight(APP, `${platform.url}/api/v1/%73ession`);
    expect(encoded.headers.get('access-control-allow-origin')).toBeNull();
    const state = await from(APP, `${platform.url}/api/v1/session/state`);
    expect(state.headers.get('access-control-allow-origin')).toBeNull();
    const posted = await from(APP, `${platform.url}/api/v1/session`, {
      method: 'POST',
      body: { name: 'admin', password: 'x' },
    });
    expect(posted.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('RESTFN_APP_ORIGINS gives the origins when --app-origin is not given', async () => {
    const platform = await startPlatformProcess({
      env: { RESTFN_APP_ORIGINS: 'https://a.example, http://127.0.0.1:5173' },
    });
    expect(platform.output()).toContain('https://a.example, http://127.0.0.1:5173');
    const asked = await preflight('http://127.0.0.1:5173', `${platform.url}/api/v1/solutions`, 'GET');
    expect(asked.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
  });

  it.each([
    ['*', 'APP_ORIGIN_WILDCARD', 'bearer tokens'],
    ['https://*.example.com', 'APP_ORIGIN_WILDCARD', 'bearer tokens'],
    ['https://x/path', 'APP_ORIGIN_INVALID', 'it has a path'],
    ['https://x?a=1', 'APP_ORIGIN_INVALID', 'it has a query'],
    ['app.example', 'APP_ORIGIN_INVALID', 'not'],
  ])('--app-origin %s is refused with %s', async (origin, code, why) => {
    const root = mkdtempSync(join(tmpdir(), 'restfn-origin-'));
    const result = await runCli(
      ['serve', '--port', '0', '--data', join(root, 'data'), '--app-origin', origin],
      {
        env: { XDG_CONFIG_HOME: join(root, 'config') },
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(code);
    expect(result.stderr).toContain(why);
    expect(result.stdout).not.toContain('listening');
  });
});

describe('per-user connections from an app', () => {
  it("an app's page starts the flow with its token, the callback in a browser without the cookie confirms, and the user lands back on the app", async () => {
    const platform = await startPlatformProcess({ args: ['--allow-private-targets', '--app-origin', APP] });
    const auth = await authServer(`${platform.url}/api/v1/oauth/callback`, 300);
    const admin = platform.adminToken;
    for (const [name, role] of [
      ['ada', 'user'],
      ['alice', 'author'],
    ]) {
      await platform.api('POST', '/api/v1/users', { token: admin, body: { name, role, solutions: ['s'] } });
    }
    const tokenOf = async (name: string) =>
      (await platform.api('POST', `/api/v1/users/${name}/tokens`, { token: admin, body: {} })).body.token;
    const ada = await tokenOf('ada');
    const alice = await tokenOf('alice');
    const published = await platform.api('PUT', '/api/v1/solutions/s', {
      token: alice,
      body: {
        files: {
          'functions/rest-get-me.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${auth.issuer}/me
parameters:
  accessToken: { location: header, type: example.oauth, value: graph }
`,
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    const stored = await platform.api('PUT', '/api/v1/solutions/s/credentials/graph', {
      token: alice,
      body: {
        kind: 'oauth',
        tokenEndpoint: auth.tokenEndpoint,
        authorizationEndpoint: auth.authorizationEndpoint,
        issuer: auth.issuer,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        scopes: ['openid', 'api'],
        grantType: 'authorization_code',
      },
    });
    expect(stored.status, stored.text).toBe(201);
    const connect = `${platform.url}/api/v1/solutions/s/credentials/graph/connect`;

    // Another site is no place to return to.
    const elsewhere = await from(APP, `${connect}?returnTo=${encodeURIComponent(`${OTHER}/done`)}`, {
      token: ada,
      headers: { accept: 'application/json' },
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.text).toContain('--app-origin');

    // The app's page fetches the provider's address (its token in the header, never in a url).
    const returnTo = `${APP}/connected?key=graph`;
    const started = await from(APP, `${connect}?returnTo=${encodeURIComponent(returnTo)}`, {
      token: ada,
      headers: { accept: 'application/json' },
    });
    expect(started.status, started.text).toBe(200);
    expect(started.headers.get('access-control-allow-origin')).toBe(APP);
    const { url } = JSON.parse(started.text) as { url: string };
    expect(url).not.toContain(ada);
    expect(url).not.toContain(CLIENT_SECRET);

    // The popup (a browser without the cookie: the app's fetch could not keep it) is asked first;
    // its page lets its form's answer go back to the app's origin.
    const popup = new TestBrowser();
    const asked = await popup.open(url, 'ada-account');
    expect(asked.html).toContain('Connect ada-account to the platform user ada');
    expect(asked.url).not.toContain(ada);
    expect(asked.headers.get('content-security-policy')).toContain(`form-action 'self' ${APP}`);
    const yes = await popup.submit(asked.url, asked.html);
    expect(yes.status).toBe(303);
    expect(yes.location).toBe(returnTo);
    const connections = await from(APP, `${platform.url}/api/v1/solutions/s/connections`, { token: ada });
    expect(JSON.parse(connections.text).connections).toEqual([
      expect.objectContaining({ key: 'graph', userName: 'ada', account: 'ada-account' }),
    ]);
  });
});
