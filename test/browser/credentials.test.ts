import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CredentialTable } from '../../src/browser/worker/credential-table.js';
import { browserCredentials } from '../../src/browser/worker/credentials.js';
import { SignIns } from '../../src/browser/worker/sign-in.js';
import { PlatformClient } from '../../src/client/platform-client.js';
import { recordingClock } from '../helpers/clock.js';
import { testServer } from '../helpers/http-server.js';
import { actAsUser, authServer, PUBLIC_CLIENT_ID } from '../helpers/oauth-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

// The worker's credential logic on Node's SQLite (the same SqlDatabase interface as the worker's
// SQLite WebAssembly), against a real restfn serve and a real OAuth server, with an injected clock
// for expiry: the Chromium tests (local-call.test.ts) cover the popup and the page.

const REQUEST = { parameter: 'accessToken', kind: 'oauth', key: 'tasks-oauth', location: 'header' } as const;

async function setting() {
  const redirect = await testServer((_req, res) => res.end('ok'));
  const auth = await authServer(`${redirect.url}/callback`);
  const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
  const admin = platform.adminToken;
  await platform.api('POST', '/api/v1/users', {
    token: admin,
    body: { name: 'uma', role: 'user', solutions: ['crm'] },
  });
  const token = (await platform.api('POST', '/api/v1/users/uma/tokens', { token: admin, body: {} })).body
    .token;
  const published = await platform.api('PUT', '/api/v1/solutions/crm', {
    token: admin,
    body: {
      files: {
        'functions/rest-get-tasks.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${redirect.url}/tasks
useLocalCall: true
parameters:
  accessToken: { location: header, type: example.oauth, value: tasks-oauth }
`,
      },
    },
  });
  expect(published.status, published.text).toBe(201);
  const oauth = (grantType: string, key = 'tasks-oauth') =>
    platform.api('PUT', `/api/v1/solutions/crm/credentials/${key}`, {
      token: admin,
      body: {
        kind: 'oauth',
        tokenEndpoint: auth.tokenEndpoint,
        authorizationEndpoint: auth.authorizationEndpoint,
        issuer: auth.issuer,
        clientId: PUBLIC_CLIENT_ID,
        scopes: ['openid', 'api', 'offline_access'],
        grantType,
        // A client-credentials grant needs the client's secret (it stays on the platform).
        ...(grantType === 'client_credentials'
          ? { clientSecret: 'cs-unused-here', origins: [redirect.url] }
          : {}),
      },
    });
  expect((await oauth('authorization_code')).status).toBe(201);
  const db = new Database(':memory:');
  onTestFinished(() => {
    db.close();
  });
  const clock = recordingClock(Date.now());
  const table = new CredentialTable(() => db);
  const signIns = new SignIns(new PlatformClient(platform.url, token), 'crm', table, clock);
  return { auth, platform, oauth, db, clock, table, signIns, redirect: `${redirect.url}/callback` };
}

describe("the browser client's credentials (worker logic on Node's SQLite)", () => {
  it('a sign-in keeps the tokens; they are refreshed after expiry; a refused refresh asks for a sign-in again and forgets them', async () => {
    const { auth, clock, table, signIns, redirect, db } = await setting();
    const start = await signIns.start('tasks-oauth', redirect);
    const url = new URL(start.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(redirect);
    const back = await actAsUser(start.url);
    expect([...back.searchParams.keys()].sort()).toEqual(['code', 'iss', 'state']);
    await signIns.finish(start.state, back.search);

    const signedIn = table.getTokens('tasks-oauth')!;
    expect(await auth.isValid(signedIn.accessToken)).toBe(true);
    // The configuration as the platform gave it: no client secret.
    expect(table.get('tasks-oauth')).toMatchObject({
      clientId: PUBLIC_CLIENT_ID,
      grantType: 'authorization_code',
    });
    expect(JSON.stringify(db.prepare('SELECT config FROM _restfn_credentials').all())).not.toContain(
      'Secret',
    );

    const provider = browserCredentials(table, clock);
    const first = await provider.apply(REQUEST);
    expect(first.values).toEqual([
      { name: 'authorization', location: 'header', value: `Bearer ${signedIn.accessToken}` },
    ]);
    expect(auth.grants).toEqual(['authorization_code']);

    clock.advance(301_000);
    const second = await provider.apply(REQUEST);
    const refreshed = table.getTokens('tasks-oauth')!;
    expect(auth.grants).toEqual(['authorization_code', 'refresh_token']);
    expect(refreshed.accessToken).not.toBe(signedIn.accessToken);
    expect(second.values[0]!.value).toBe(`Bearer ${refreshed.accessToken}`);

    // The provider refuses the refresh token now: a sign-in, in the browser's words, and the
    // useless tokens are gone (the next call does not try them again).
    await (await auth.provider.RefreshToken.find(refreshed.refreshToken!))!.destroy();
    clock.advance(301_000);
    const refused = await provider.apply(REQUEST).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'LOGIN_REQUIRED', credential: 'tasks-oauth' });
    expect((refused as Error).message).toContain("client.signIn('tasks-oauth')");
    expect(table.getTokens('tasks-oauth')).toBeUndefined();
  }, 120_000);

  it('refuses what is not a sign-in: an unknown state, a client-credentials credential, a credential never signed in, a non-OAuth one', async () => {
    const { oauth, clock, table, signIns, redirect } = await setting();
    await expect(signIns.finish('made-up-state', '?code=x&state=made-up-state')).rejects.toMatchObject({
      code: 'LOGIN_FAILED',
    });
    // The user declined at the provider: the redirect carries an error, not a code.
    const declined = await signIns.start('tasks-oauth', redirect);
    await expect(
      signIns.finish(declined.state, `?error=access_denied&state=${declined.state}`),
    ).rejects.toMatchObject({ code: 'LOGIN_FAILED', credential: 'tasks-oauth' });
    expect(table.getTokens('tasks-oauth')).toBeUndefined();
    const machine = await oauth('client_credentials', 'machine');
    expect(machine.status, machine.text).toBe(201);
    await expect(signIns.start('machine', redirect)).rejects.toMatchObject({
      code: 'LOGIN_NOT_NEEDED',
      credential: 'machine',
    });
    const provider = browserCredentials(table, clock);
    await expect(provider.apply(REQUEST)).rejects.toMatchObject({
      code: 'LOGIN_REQUIRED',
      credential: 'tasks-oauth',
    });
    await expect(provider.apply({ ...REQUEST, kind: 'secret' })).rejects.toMatchObject({
      code: 'LOCAL_CALL_CREDENTIAL',
    });
  }, 120_000);
});
