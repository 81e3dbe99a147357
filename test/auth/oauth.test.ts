import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { refreshGrant } from '../../src/auth/oauth.js';
import { StoreCredentialProvider } from '../../src/auth/provider.js';
import { CredentialStore, type OAuthCredential } from '../../src/auth/store.js';
import { loadSolution } from '../../src/definition/solution.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { CLI, runCli } from '../helpers/cli.js';
import { recordingClock } from '../helpers/clock.js';
import { json, testServer } from '../helpers/http-server.js';
import { actAsUser, authServer, CLIENT_ID, CLIENT_SECRET, loginAsUser } from '../helpers/oauth-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const FUNCTION = (url: string) => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/me
parameters:
  accessToken:
    location: header
    type: test.oauth
    required: true
    value: web
`;

/** An auth server, a resource server that accepts only its live tokens, and a solution calling it. */
async function setup(grantType: OAuthCredential['grantType'], accessTokenTtl = 300) {
  const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  const as = await authServer(redirectUri, accessTokenTtl);
  const seen: Array<string | undefined> = [];
  const api = await testServer(async (req, res) => {
    const token = req.headers.authorization?.replace(/^Bearer /, '');
    seen.push(token);
    if (await as.isValid(token)) json(res, 200, { user: 'ok' });
    else json(res, 401, { error: 'invalid_token' });
  });
  const root = tempSolution({ 'functions/rest-me.platform': FUNCTION(api.url) });
  const store = new CredentialStore(join(root, '.restfn', 'credentials.db'), randomBytes(32));
  const credential: OAuthCredential = {
    kind: 'oauth',
    tokenEndpoint: as.tokenEndpoint,
    authorizationEndpoint: as.authorizationEndpoint,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    scopes: ['api', 'offline_access'],
    grantType,
    redirectUri,
  };
  store.set('web', credential);
  const clock = recordingClock(Date.now());
  const runtime = createRuntime(loadSolution(root), {
    credentials: new StoreCredentialProvider(() => store, clock),
    clock,
  });
  onTestFinished(() => runtime.close());
  return { as, api, seen, root, store, credential, clock, runtime, redirectUri };
}

test('an outage of the token endpoint is not a request to log in again, and keeps the tokens', async () => {
  const tokenEndpoint = await testServer((_, res) => json(res, 503, { error: 'temporarily_unavailable' }));
  const root = tempSolution();
  const store = new CredentialStore(join(root, 'credentials.db'), randomBytes(32));
  store.set('web', {
    kind: 'oauth',
    tokenEndpoint: `${tokenEndpoint.url}/token`,
    clientId: 'c',
    clientSecret: 's',
    scopes: [],
    grantType: 'authorization_code',
  });
  store.setTokens('web', { accessToken: 'old-access', refreshToken: 'still-good', expiresAt: 0 });
  const provider = new StoreCredentialProvider(() => store, recordingClock());
  const request = {
    parameter: 'accessToken',
    kind: 'oauth' as const,
    key: 'web',
    location: 'header' as const,
  };
  await expect(provider.apply(request)).rejects.toMatchObject({ code: 'OAUTH_ERROR' });
  expect(store.getTokens('web')).toMatchObject({ refreshToken: 'still-good' });
});

describe('OAuth against a real authorization server', () => {
  test('client credentials: a token is fetched once, reused, and works at the resource server', async () => {
    const { as, seen, runtime, store } = await setup('client_credentials');
    expect(await runtime.execute('rest-me')).toMatchObject({ output: { user: 'ok' } });
    expect(await runtime.execute('rest-me')).toMatchObject({ output: { user: 'ok' } });
    expect(as.grants).toEqual(['client_credentials']);
    expect(seen[0]).toBe(seen[1]);
    const bytes = readFileSync(store.file, 'latin1');
    expect(bytes).not.toContain(seen[0]!);
    expect(bytes).not.toContain(CLIENT_SECRET);
  });

  test('the oauth template runs against the real servers once its credential is stored (client credentials)', async () => {
    const { as, api, root, credential } = await setup('client_credentials');
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    expect(
      (await runCli(['new', 'rest-oauth', '-t', 'oauth', '--url', `${api.url}/me`], { cwd: root, env })).code,
    ).toBe(0);
    const set = await runCli(
      [
        'credentials',
        'set',
        'oauth',
        '--kind',
        'oauth',
        '--grant',
        'client_credentials',
        '--token-url',
        credential.tokenEndpoint,
        '--client-id',
        CLIENT_ID,
        '--scope',
        'api',
      ],
      { cwd: root, env, input: CLIENT_SECRET },
    );
    expect(set.code, set.stderr).toBe(0);
    const run = await runCli(['run', 'rest-oauth'], { cwd: root, env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ user: 'ok' });
    expect(as.grants).toEqual(['client_credentials']);
  }, 20_000);

  test('authorization code with PKCE through `restfn login`; the test plays the user', async () => {
    const { as, api, root, credential } = await setup('authorization_code');
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    const set = await runCli(
      [
        'credentials',
        'set',
        'web',
        '--kind',
        'oauth',
        '--token-url',
        credential.tokenEndpoint,
        '--authorize-url',
        credential.authorizationEndpoint!,
        '--client-id',
        CLIENT_ID,
        '--scope',
        'api',
        '--scope',
        'offline_access',
        '--redirect-uri',
        credential.redirectUri!,
      ],
      { cwd: root, env, input: CLIENT_SECRET },
    );
    expect(set.code, set.stderr).toBe(0);

    const child = spawn(process.execPath, [CLI, 'login', 'web'], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    const url = await new Promise<string>((resolve) => {
      child.stderr.on('data', (c) => {
        stderr += c;
        const match = /^(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(stderr);
        if (match) resolve(match[1]!);
      });
    });
    expect(new URL(url).searchParams.get('code_challenge_method')).toBe('S256');
    const redirect = await actAsUser(url);
    expect(redirect.searchParams.get('code')).toBeTruthy();
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain("restfn: logged in: 'web'\n");
    expect(as.grants).toEqual(['authorization_code']);

    const run = await runCli(['run', 'rest-me', '--verbose'], { cwd: root, env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ user: 'ok' });
    expect(run.stderr).toContain('> authorization: ***');
    const list = await runCli(['credentials', 'list'], { cwd: root, env });
    expect(list.stdout).toBe('KEY  KIND   STATE\nweb  oauth  logged in\n');
    expect(api.requests).toHaveLength(1);
    const stored = readFileSync(join(root, '.restfn', 'credentials.db'), 'latin1');
    const token = api.requests[0]!.headers.authorization!.replace('Bearer ', '');
    for (const text of [stored, run.stdout, run.stderr, stdout, stderr]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(CLIENT_SECRET);
    }
  }, 30_000);

  test('expiry before a call refreshes with rotation; a server-side expiry is a 401, refreshed and retried; the old refresh token is dead', async () => {
    const { as, runtime, store, clock, credential, seen } = await setup('authorization_code', 60);
    await loginAsUser(store, clock);
    const first = store.getTokens('web')!;
    expect(first.refreshToken).toBeTruthy();
    await runtime.execute('rest-me');
    expect(as.grants).toEqual(['authorization_code']);

    clock.advance(61_000); // the token expires between two calls
    expect(await runtime.execute('rest-me')).toMatchObject({ output: { user: 'ok' } });
    const second = store.getTokens('web')!;
    expect(as.grants).toEqual(['authorization_code', 'refresh_token']);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);

    // The server drops the access token although restfn still thinks it valid: 401, refresh, retry.
    await (await as.provider.AccessToken.find(second.accessToken))!.destroy();
    const before = seen.length;
    expect(await runtime.execute('rest-me')).toMatchObject({ output: { user: 'ok' } });
    expect(seen.length - before).toBe(2);
    expect(store.getTokens('web')!.accessToken).not.toBe(second.accessToken);

    // The rotated-out refresh token is dead; replaying it makes the server revoke the whole grant
    // (replay detection), after which only a new login helps.
    await expect(refreshGrant(credential, first.refreshToken!, Date.now())).rejects.toMatchObject({
      code: 'LOGIN_REQUIRED',
    });
    await expect(runtime.execute('rest-me')).rejects.toMatchObject({ code: 'LOGIN_REQUIRED' });
  });

  test('concurrent calls share one refresh', async () => {
    const { as, runtime, store, clock } = await setup('authorization_code', 60);
    await loginAsUser(store, clock);
    clock.advance(61_000);
    const results = await Promise.all(Array.from({ length: 5 }, () => runtime.execute('rest-me')));
    expect(results.every((r) => r.status === 'ok')).toBe(true);
    expect(as.grants.filter((g) => g === 'refresh_token')).toHaveLength(1);
  });

  test('a revoked refresh token, or no login at all: LOGIN_REQUIRED, nothing sent to the resource server', async () => {
    const { as, api, runtime, store, clock } = await setup('authorization_code', 60);
    await expect(runtime.execute('rest-me')).rejects.toMatchObject({ code: 'LOGIN_REQUIRED' });
    await loginAsUser(store, clock);
    await (await as.provider.RefreshToken.find(store.getTokens('web')!.refreshToken!))!.destroy();
    clock.advance(61_000);
    const error = await runtime.execute('rest-me').catch((e) => e);
    expect(error).toMatchObject({
      code: 'LOGIN_REQUIRED',
      message: "credential 'web' needs a login: run 'restfn login web'",
    });
    expect(store.getTokens('web')).toBeUndefined();
    expect(api.requests).toHaveLength(0);
  });
});
