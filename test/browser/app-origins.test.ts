import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { json, testServer } from '../helpers/http-server.js';
import { authServer, CLIENT_ID, CLIENT_SECRET } from '../helpers/oauth-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

/**
 * A web app's page, served from its own origin (a second loopback port), calling a real
 * `restfn serve` with `fetch` and a user's token, in Chromium: what the browser lets it read is
 * the test, not what the server sends.
 */

const PASSWORD = 'app-origin-pass-42Xy';
// The page's globals, for the functions evaluated in it (the tests are compiled without the DOM library).
declare const location: { assign(url: string): void };

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * A static app: one page at every path (the app's own, and the page a connect flow returns to);
 * `/popup-done` is the page a popup's flow returns to: it tells the app's other pages (a popup has
 * no opener once the platform's pages cut it: COOP) and says whether it still had one.
 */
const appServer = () =>
  testServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    const script = req.url.startsWith('/popup-done')
      ? `<script>new BroadcastChannel('connect').postMessage({ connected: true, opener: window.opener !== null });</script>`
      : '';
    res.end(
      `<!doctype html><html lang="en"><head><title>app</title></head><body><p>app</p>${script}</body></html>`,
    );
  });

/** What a page's fetch made of an answer: read (status and body), or refused by the browser. */
interface Seen {
  readonly status?: number;
  readonly body?: { status?: string; code?: string; body?: unknown; user?: unknown; url?: string };
  readonly refused?: string;
}

async function setUp() {
  const listed = await appServer();
  const unlisted = await appServer();
  const remote = await testServer((_req, res) => json(res, 200, { items: [{ id: 'c-7', name: 'Ada' }] }));
  const platform = await startPlatformProcess({
    args: ['--allow-private-targets', '--app-origin', listed.url],
  });
  const admin = platform.adminToken;
  await platform.api('PATCH', '/api/v1/users/admin', { token: admin, body: { password: PASSWORD } });
  for (const [name, role] of [
    ['ada', 'user'],
    ['alice', 'author'],
  ]) {
    await platform.api('POST', '/api/v1/users', { token: admin, body: { name, role, solutions: ['s'] } });
  }
  const tokenOf = async (name: string): Promise<string> =>
    (await platform.api('POST', `/api/v1/users/${name}/tokens`, { token: admin, body: {} })).body.token;
  const ada = await tokenOf('ada');
  const alice = await tokenOf('alice');
  const auth = await authServer(`${platform.url}/api/v1/oauth/callback`);
  const published = await platform.api('PUT', '/api/v1/solutions/s', {
    token: alice,
    body: {
      files: {
        'functions/rest-get-customers.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${remote.url}/customers\n`,
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
  return { platform, listed, unlisted, ada, admin };
}

/** Runs a `fetch` in the page: what the app's code gets. */
function fetchIn(
  page: import('playwright-core').Page,
  url: string,
  init: { method?: string; token?: string; body?: unknown; credentials?: 'include' | 'omit' } = {},
): Promise<Seen> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const res = await fetch(url, {
          method: init.method ?? 'GET',
          ...(init.credentials ? { credentials: init.credentials } : {}),
          headers: {
            accept: 'application/json',
            ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
            ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
        });
        return { status: res.status, body: (await res.json()) as Seen['body'] };
      } catch (error) {
        return { refused: String(error) };
      }
    },
    { url, init },
  );
}

describe('a browser app on another origin calls the platform (--app-origin)', () => {
  it('a listed origin reads the API with a token (refusals too); another origin is refused; the console session is not usable', async () => {
    const { platform, listed, unlisted, ada } = await setUp();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${listed.url}/`);
      const solution = await fetchIn(page, `${platform.url}/api/v1/solutions/s`, { token: ada });
      expect(solution.status, JSON.stringify(solution)).toBe(200);
      expect(solution.body).toMatchObject({ name: 's' });
      const called = await fetchIn(
        page,
        `${platform.url}/api/v1/solutions/s/functions/rest-get-customers/call`,
        {
          method: 'POST',
          token: ada,
          body: { values: {}, correlationId: 'page-1' },
        },
      );
      expect(called).toMatchObject({ status: 200, body: { status: 200, body: { items: [{ id: 'c-7' }] } } });
      // A refusal is read too: the app can tell a bad token from the platform being away.
      const unknown = await fetchIn(page, `${platform.url}/api/v1/solutions/s`, { token: 'revoked-token' });
      expect(unknown).toMatchObject({ status: 401, body: { code: 'AUTH_REQUIRED' } });

      // The console's session cookie, in this browser: a page of the app cannot use it.
      const session = await platform.api('POST', '/api/v1/session', {
        body: { name: 'admin', password: PASSWORD },
      });
      const cookie = /restfn_session=([^;]+)/.exec(session.headers.get('set-cookie') ?? '')?.[1];
      expect(cookie).toBeDefined();
      await context.addCookies([
        { name: 'restfn_session', value: cookie!, url: platform.url, httpOnly: true, sameSite: 'Strict' },
      ]);
      const withCookie = await fetchIn(page, `${platform.url}/api/v1/me`, { credentials: 'include' });
      expect(withCookie.refused).toBeDefined();
      const stateWithCookie = await fetchIn(page, `${platform.url}/api/v1/session/state`, {
        credentials: 'include',
      });
      expect(stateWithCookie.refused).toBeDefined();
      // Without credentials the cookie is not sent: the answer is the one for nobody.
      const withoutCookie = await fetchIn(page, `${platform.url}/api/v1/me`);
      expect(withoutCookie).toMatchObject({ status: 401, body: { code: 'AUTH_REQUIRED' } });

      // The same page on an origin not listed: the browser refuses the answers.
      const other = await context.newPage();
      await other.goto(`${unlisted.url}/`);
      const refused = await fetchIn(other, `${platform.url}/api/v1/solutions/s`, { token: ada });
      expect(refused.refused).toMatch(/TypeError|Failed to fetch/);
      const refusedCall = await fetchIn(
        other,
        `${platform.url}/api/v1/solutions/s/functions/rest-get-customers/call`,
        { method: 'POST', token: ada, body: { values: {} } },
      );
      expect(refusedCall.refused).toBeDefined();
    } finally {
      await context.close();
    }
  });

  it("connects a user's account from the app's page: the provider's sign-in, the confirmation, back on the app; no token in any address", async () => {
    const { platform, listed, ada } = await setUp();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const addresses: string[] = [];
      page.on('request', (request) => addresses.push(request.url()));
      await page.goto(`${listed.url}/customers`);
      // The app asks the platform with its token for where to send the user (CONNECTION_REQUIRED's connectUrl).
      const needed = await fetchIn(page, `${platform.url}/api/v1/solutions/s/functions/rest-get-me/call`, {
        method: 'POST',
        token: ada,
        body: { values: {} },
      });
      expect(needed).toMatchObject({ status: 424, body: { code: 'CONNECTION_REQUIRED' } });
      const connectUrl = (needed.body as { connectUrl: string }).connectUrl;
      const returnTo = `${listed.url}/connected`;
      const started = await fetchIn(page, `${connectUrl}?returnTo=${encodeURIComponent(returnTo)}`, {
        token: ada,
      });
      expect(started.status, JSON.stringify(started)).toBe(200);
      // The redirect way (a popup goes the same way): the page goes to the provider.
      await page.evaluate((url) => location.assign(url), started.body!.url!);
      await page.waitForSelector('input[name="login"]');
      await page.fill('input[name="login"]', 'ada-account');
      await page.fill('input[name="password"]', 'any-password');
      await page.click('button[type="submit"]');
      // The provider's consent, then the platform's confirmation (no connect cookie crossed origins).
      await page.waitForURL(/\/interaction\/|\/oauth\/callback/);
      if (page.url().includes('/interaction/')) await page.click('button[type="submit"]');
      await page.waitForURL(/\/oauth\/callback/);
      expect(await page.textContent('body')).toContain('Connect ada-account to the platform user ada');
      await page.click('button[type="submit"]');
      await page.waitForURL(returnTo);

      const connections = await fetchIn(page, `${platform.url}/api/v1/solutions/s/connections`, {
        token: ada,
      });
      expect(connections.body).toMatchObject({ connections: [{ key: 'graph', account: 'ada-account' }] });
      expect(addresses.some((a) => a.startsWith(`${platform.url}/api/v1/oauth/confirm`))).toBe(true);
      expect(addresses.filter((a) => a.includes(ada) || a.includes(CLIENT_SECRET))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('connects from a popup: the page the popup returns to tells the app by a BroadcastChannel', async () => {
    const { platform, listed, ada } = await setUp();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${listed.url}/customers`);
      const connect = `${platform.url}/api/v1/solutions/s/credentials/graph/connect`;
      const started = await fetchIn(
        page,
        `${connect}?returnTo=${encodeURIComponent(`${listed.url}/popup-done`)}`,
        {
          token: ada,
        },
      );
      // The app listens, then opens the provider's page in a popup.
      const heard = page.evaluate(
        () =>
          new Promise<unknown>((resolve) => {
            new BroadcastChannel('connect').onmessage = (event: { data: unknown }) => resolve(event.data);
          }),
      );
      const [popup] = await Promise.all([
        context.waitForEvent('page'),
        page.evaluate(
          (url) => void (globalThis as unknown as { open(u: string): unknown }).open(url),
          started.body!.url!,
        ),
      ]);
      await popup.waitForSelector('input[name="login"]');
      await popup.fill('input[name="login"]', 'ada-popup');
      await popup.fill('input[name="password"]', 'any-password');
      await popup.click('button[type="submit"]');
      await popup.waitForURL(/\/interaction\/|\/oauth\/callback/);
      if (popup.url().includes('/interaction/')) await popup.click('button[type="submit"]');
      await popup.waitForURL(/\/oauth\/callback/);
      await popup.click('button[type="submit"]');
      expect(await heard).toEqual({ connected: true, opener: false });
      const connections = await fetchIn(page, `${platform.url}/api/v1/solutions/s/connections`, {
        token: ada,
      });
      expect(connections.body).toMatchObject({ connections: [{ key: 'graph', account: 'ada-popup' }] });
    } finally {
      await context.close();
    }
  });
});
