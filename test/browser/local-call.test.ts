import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { appServer } from '../helpers/app-server.js';
import { launchChromium } from '../helpers/chromium.js';
import { json, testServer } from '../helpers/http-server.js';
import {
  type AuthServer,
  authServer,
  CLIENT_ID,
  CLIENT_SECRET,
  PUBLIC_CLIENT_ID,
} from '../helpers/oauth-server.js';
import { type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';
import { customersApi, queueSolution } from '../helpers/queue.js';

const dist = join(import.meta.dirname, '..', '..', 'dist', 'browser');

/** The app's pages: the client from the served browser build, and the sign-in redirect page. */
const PAGE = `<!doctype html><title>app</title>
<script type="module">
import { createClient } from '/restfn/client/index.js';
window.pageClient = () => window.client;
window.openClient = async (token) => {
  window.client = await createClient({
    server: location.origin,
    token,
    solution: 'crm',
    signInRedirect: new URL('/signed-in.html', location.href).href,
  });
  return window.client.status;
};
</script>`;
const SIGNED_IN = `<!doctype html><title>signed in</title>
<script type="module">
import { completeSignIn } from '/restfn/client/index.js';
completeSignIn();
</script>`;

// biome-ignore lint/suspicious/noExplicitAny: the page's client, typed loosely in tests
type PageClient = any;
/** The page's client (window.pageClient, defined by PAGE): what page.evaluate's functions call. */
declare function pageClient(): PageClient;

/** The platform with `files` published as solution `crm`, an app user's token, and the app's server. */
async function setting(files: (appOrigin: () => string) => Record<string, string>) {
  let origin = '';
  const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
  const admin = platform.adminToken;
  const tokens: Record<string, string> = {};
  for (const [name, role] of [
    ['ann', 'author'],
    ['uma', 'user'],
  ] as const) {
    await platform.api('POST', '/api/v1/users', { token: admin, body: { name, role, solutions: ['crm'] } });
    tokens[name] = (
      await platform.api('POST', `/api/v1/users/${name}/tokens`, { token: admin, body: {} })
    ).body.token;
  }
  const published = await platform.api('PUT', '/api/v1/solutions/crm', {
    token: tokens.ann,
    body: { files: files(() => origin) },
  });
  expect(published.status, published.text).toBe(201);
  const pages = mkdtempSync(join(tmpdir(), 'restfn-app-'));
  writeFileSync(join(pages, 'index.html'), PAGE);
  writeFileSync(join(pages, 'signed-in.html'), SIGNED_IN);
  const app = await appServer({ '/restfn/client/': dist, '/': pages }, platform.url);
  origin = app.url;
  return { platform, author: tokens.ann!, token: tokens.uma!, app };
}

/** A Chromium page (one at a time, closed with the test) and every URL the app's context requested. */
async function browserPage() {
  const browser = await launchChromium();
  onTestFinished(() => browser.close());
  const context = await browser.newContext();
  const urls: string[] = [];
  // The context's requests: the page's, its worker's and the popup's.
  context.on('request', (request) => urls.push(request.url()));
  return { context, page: await context.newPage(), urls };
}

async function open(page: Page, url: string, token: string) {
  await page.goto(`${url}/`);
  await page.waitForFunction(() => 'openClient' in globalThis);
  return page.evaluate(
    (token) => (globalThis as unknown as { openClient(t: string): Promise<unknown> }).openClient(token),
    token,
  );
}

/** The user in the popup: the provider's login page, then its consent page. */
async function signInAsUser(context: BrowserContext, user: string): Promise<void> {
  const popup = await context.waitForEvent('page');
  await popup.waitForSelector('input[name="login"]');
  await popup.fill('input[name="login"]', user);
  const password = await popup.$('input[name="password"]');
  if (password) await password.fill('any-password');
  await popup.click('button[type="submit"]');
  await popup.waitForSelector('button[type="submit"]:has-text("Continue")');
  await popup.click('button[type="submit"]:has-text("Continue")');
}

/**
 * A tasks service that only the user's own bearer token opens, answering the app's origin (CORS:
 * the worker calls it directly); the tokens it saw, in order.
 */
async function tasksService(auth: () => AuthServer, appOrigin: () => string) {
  const seen: string[] = [];
  const service = await testServer(async (req, res) => {
    const cors = {
      'access-control-allow-origin': appOrigin(),
      'access-control-allow-headers': String(
        req.headers['access-control-request-headers'] ?? 'authorization',
      ),
      vary: 'origin',
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      return res.end();
    }
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const found = token ? await auth().provider.AccessToken.find(token) : undefined;
    if (!token || !found || found.isExpired) return json(res, 401, { error: 'invalid_token' }, cors);
    seen.push(token);
    json(res, 200, [{ id: 't-1', title: 'Write the tests', owner: found.accountId }], cors);
  });
  return { ...service, seen };
}

const localCallSolution = (service: string) => ({
  'functions/rest-get-tasks.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service}/tasks
useLocalCall: true
parameters:
  accessToken: { location: header, type: example.oauth, value: tasks-oauth }
`,
  // The same credential, a service that is down (nothing listens on port 9).
  'functions/rest-get-down.platform': `provider: DATA_PROVIDER_REST
method: GET
url: http://127.0.0.1:9/tasks
useLocalCall: true
parameters:
  accessToken: { location: header, type: example.oauth, value: tasks-oauth }
`,
  'datasources/down.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: down
      function: rest-get-down
  query: SELECT id, data FROM [down]
`,
  'datasources/tasks.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: tasks
      function: rest-get-tasks
  query: SELECT id, data FROM [tasks]
`,
});

/** The credential's configuration on the platform: a public client (PKCE), no secret. */
async function putPublicCredential(platform: PlatformProcess, author: string, auth: AuthServer) {
  const stored = await platform.api('PUT', '/api/v1/solutions/crm/credentials/tasks-oauth', {
    token: author,
    body: {
      kind: 'oauth',
      tokenEndpoint: auth.tokenEndpoint,
      authorizationEndpoint: auth.authorizationEndpoint,
      issuer: auth.issuer,
      clientId: PUBLIC_CLIENT_ID,
      scopes: ['openid', 'api', 'offline_access'],
      grantType: 'authorization_code',
    },
  });
  expect(stored.status, stored.text).toBe(201);
}

describe('restfn/client: sign-in, useLocalCall and scripts in Chromium', () => {
  it('a useLocalCall function syncs from the page after signIn, with the user’s own token the platform never sees; an expiring token is refreshed once', async () => {
    let auth: AuthServer | undefined;
    let origin = '';
    const service = await tasksService(
      () => auth!,
      () => origin,
    );
    const { platform, author, token, app } = await setting(() => localCallSolution(service.url));
    origin = app.url;
    // The token of the sign-in lives 10 s: within the client's 30 s margin, so it counts as expired
    // at once and the first call refreshes it; the refreshed ones live 300 s.
    let ttl = 10;
    auth = await authServer(`${app.url}/signed-in.html`, () => ttl);
    await putPublicCredential(platform, author, auth);

    const { context, page, urls } = await browserPage();
    await open(page, app.url, token);

    // Before a sign-in: a coded error naming the credential, for the app to call signIn.
    const before = await page.evaluate(() =>
      pageClient()
        .sync('tasks')
        .then(
          () => null,
          (e: { code: string; credential: string; message: string }) => ({
            code: e.code,
            credential: e.credential,
            message: e.message,
          }),
        ),
    );
    expect(before).toMatchObject({ code: 'LOGIN_REQUIRED', credential: 'tasks-oauth' });
    expect(before?.message).toContain("client.signIn('tasks-oauth')");
    expect(service.seen).toEqual([]);

    const signingIn = page.evaluate(() => pageClient().signIn('tasks-oauth'));
    await signInAsUser(context, 'ada');
    await signingIn;
    expect(auth.grants).toEqual(['authorization_code']);
    ttl = 300;

    const rows = await page.evaluate(async () => {
      await pageClient().sync('tasks');
      return pageClient().query('SELECT id, data FROM [tasks]');
    });
    expect(rows).toEqual([{ id: 't-1', data: { id: 't-1', title: 'Write the tests', owner: 'ada' } }]);
    // The short-lived token was refreshed before the call, once; the next sync reuses the new one.
    expect(auth.grants).toEqual(['authorization_code', 'refresh_token']);
    await page.evaluate(() => pageClient().sync('tasks'));
    expect(auth.grants).toEqual(['authorization_code', 'refresh_token']);
    expect(service.seen).toHaveLength(2);
    expect(service.seen[0]).toBe(service.seen[1]);
    expect(await auth.isValid(service.seen[0])).toBe(true);

    // The service was called by this browser (its request is among those seen), not by the platform,
    // and no URL the page, its worker or the popup asked for holds a token; the platform's log
    // holds none either.
    expect(urls.some((u) => u.startsWith(`${service.url}/tasks`))).toBe(true);
    expect(urls.some((u) => u.includes('code='))).toBe(true);
    for (const seen of service.seen) {
      expect(urls.filter((u) => u.includes(seen))).toEqual([]);
      expect(platform.output()).not.toContain(seen);
    }
    expect(urls.filter((u) => /access_token|refresh_token|id_token/.test(u))).toEqual([]);
    // A solution without scripts never loads QuickJS.
    expect(urls.filter((u) => u.includes('emscripten-module'))).toEqual([]);

    // The service of a useLocalCall function is down: its network error, and the platform is
    // still reported reachable (it was not the one asked).
    const down = await page.evaluate(async () => {
      const code = await pageClient()
        .sync('down')
        .then(
          () => 'ok',
          (e: { code: string }) => e.code,
        );
      return { code, online: pageClient().status.online };
    });
    expect(down).toEqual({ code: 'NETWORK_ERROR', online: true });

    // Signed out: the next call asks for a sign-in again.
    const after = await page.evaluate(async () => {
      await pageClient().signOut('tasks-oauth');
      return pageClient()
        .sync('tasks')
        .then(
          () => null,
          (e: { code: string; credential: string }) => ({ code: e.code, credential: e.credential }),
        );
    });
    expect(after).toEqual({ code: 'LOGIN_REQUIRED', credential: 'tasks-oauth' });
    await page.evaluate(() => pageClient().close());
  }, 180_000);

  it('runs an expression script in the worker: QuickJS and date-fns load from the browser build', async () => {
    const api = await customersApi([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    const { token, app } = await setting(() => {
      const files = queueSolution(api.url);
      files['scripts/expressions/labels.js'] = `import { format } from 'date-fns';
export function label(name) {
  return name.toUpperCase() + ' since ' + format(new Date(2026, 0, 2), 'yyyy-MM-dd');
}
`;
      files['functions/rest-get-customers.platform'] +=
        `outputTransform: '$map($, function($c) { $merge([$c, { "label": $labels.label($c.name) }]) })'\n`;
      return files;
    });
    const { page, urls } = await browserPage();
    await open(page, app.url, token);
    const rows = await page.evaluate(async () => {
      await pageClient().sync('customers');
      return pageClient().query('SELECT id, data FROM [customers]');
    });
    expect(rows).toEqual([
      { id: 'c-1', data: { id: 'c-1', name: 'Ada', region: 'eu', label: 'ADA since 2026-01-02' } },
    ]);
    expect(urls.filter((u) => u.endsWith('/restfn/client/emscripten-module.wasm'))).toHaveLength(1);
    expect(urls.some((u) => /\/restfn\/client\/date-fns-[^/]+\.js$/.test(u))).toBe(true);
    // No function names a credential the browser holds: the OAuth client's chunk is never fetched.
    const oauthChunk = readdirSync(dist).find(
      (f) => f.endsWith('.js') && readFileSync(join(dist, f), 'utf8').includes('code_challenge_method'),
    );
    expect(oauthChunk).toMatch(/^chunk-/);
    expect(urls.filter((u) => u.endsWith(`/${oauthChunk}`))).toEqual([]);
    await page.evaluate(() => pageClient().close());
  }, 180_000);

  it('CONNECTION_REQUIRED names the credential; client.connect runs the platform’s connect flow in a popup, after which the platform calls as the user', async () => {
    let auth: AuthServer | undefined;
    const service = await testServer(async (req, res) => {
      const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      const found = token ? await auth!.provider.AccessToken.find(token) : undefined;
      if (!found || found.isExpired) return json(res, 401, { error: 'invalid_token' });
      json(res, 200, [{ id: 'me', account: found.accountId }]);
    });
    const { platform, author, token, app } = await setting(() => ({
      'functions/rest-get-me.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/me
parameters:
  accessToken: { location: header, type: example.oauth, value: graph }
`,
      'datasources/me.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: me
      function: rest-get-me
  query: SELECT id, data FROM [me]
`,
    }));
    auth = await authServer(`${platform.url}/api/v1/oauth/callback`);
    const stored = await platform.api('PUT', '/api/v1/solutions/crm/credentials/graph', {
      token: author,
      body: {
        kind: 'oauth',
        tokenEndpoint: auth.tokenEndpoint,
        authorizationEndpoint: auth.authorizationEndpoint,
        issuer: auth.issuer,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        scopes: ['openid', 'api', 'offline_access'],
        grantType: 'authorization_code',
      },
    });
    expect(stored.status, stored.text).toBe(201);

    const { context, page, urls } = await browserPage();
    await open(page, app.url, token);
    const before = await page.evaluate(() =>
      pageClient()
        .sync('me')
        .then(
          () => null,
          (e: { code: string; credential: string; message: string }) => ({
            code: e.code,
            credential: e.credential,
            message: e.message,
          }),
        ),
    );
    expect(before).toMatchObject({ code: 'CONNECTION_REQUIRED', credential: 'graph' });
    expect(before?.message).toContain("client.connect('graph')");

    const connecting = page.evaluate(() => pageClient().connect('graph'));
    const popup = await context.waitForEvent('page');
    await popup.waitForSelector('input[name="login"]');
    await popup.fill('input[name="login"]', 'uma-account');
    const password = await popup.$('input[name="password"]');
    if (password) await password.fill('any-password');
    await popup.click('button[type="submit"]');
    await popup.click('button[type="submit"]:has-text("Continue")');
    // The platform's own page ends the flow (the browser that started it, by its cookie: no
    // confirmation asked); the user closes the window.
    await popup.waitForSelector("text=uma-account is connected to uma for 'graph'");
    await popup.close();
    await connecting;

    const rows = await page.evaluate(async () => {
      await pageClient().sync('me');
      return pageClient().query('SELECT id, data FROM [me]');
    });
    expect(rows).toEqual([{ id: 'me', data: { id: 'me', account: 'uma-account' } }]);
    // The app user's platform token went in headers only.
    expect(urls.filter((u) => u.includes(token))).toEqual([]);
    await page.evaluate(() => pageClient().close());
  }, 180_000);
});
