import { describe, expect, it } from 'vitest';
import { TestBrowser } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { authServer, CLIENT_ID, CLIENT_SECRET, PUBLIC_CLIENT_ID } from '../helpers/oauth-server.js';
import { bytesOf, startPlatformProcess } from '../helpers/platform.js';

/**
 * A platform with solution `s`: users ada and bob (role user) and author alice, a function that
 * calls a resource server with the calling user's token, and the credential `graph` (OAuth,
 * authorization code) of a real OAuth server whose access tokens live `ttl` seconds.
 */
async function setUp(ttl = 300, solution = 's') {
  const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
  const auth = await authServer(`${platform.url}/api/v1/oauth/callback`, ttl);
  const seen: string[] = [];
  // The remote API: who is this token for?
  const remote = await testServer(async (req, res) => {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    seen.push(token ?? '');
    const found = token ? await auth.provider.AccessToken.find(token) : undefined;
    if (!found || found.isExpired) return json(res, 401, { error: 'invalid_token' });
    json(res, 200, { account: found.accountId });
  });
  const admin = platform.adminToken;
  const tokens: Record<string, string> = {};
  for (const [name, role] of [
    ['ada', 'user'],
    ['bob', 'user'],
    ['alice', 'author'],
  ] as const) {
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name, role, solutions: [solution] },
    });
    tokens[name] = (
      await platform.api('POST', `/api/v1/users/${name}/tokens`, { token: admin, body: {} })
    ).body.token;
  }
  const published = await platform.api('PUT', `/api/v1/solutions/${solution}`, {
    token: tokens.alice,
    body: {
      files: {
        'functions/rest-get-me.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${remote.url}/me
parameters:
  accessToken: { location: header, type: example.oauth, value: graph }
`,
      },
    },
  });
  expect(published.status).toBe(201);
  const stored = await platform.api('PUT', `/api/v1/solutions/${solution}/credentials/graph`, {
    token: tokens.alice,
    body: {
      kind: 'oauth',
      tokenEndpoint: auth.tokenEndpoint,
      authorizationEndpoint: auth.authorizationEndpoint,
      issuer: auth.issuer,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      scopes: ['openid', 'api', 'offline_access'],
      grantType: 'authorization_code',
      revocationEndpoint: `${auth.issuer}/token/revocation`,
    },
  });
  expect(stored.status, stored.text).toBe(201);
  const execute = (user: string, fn = 'rest-get-me') =>
    platform.api('POST', `/api/v1/solutions/${solution}/functions/${fn}/execute`, {
      token: tokens[user],
      body: {},
    });
  /** `user` connects the provider's `account` in a browser of their own. */
  const connect = (user: string, account: string) =>
    new TestBrowser().open(
      `${platform.url}/api/v1/solutions/${solution}/credentials/graph/connect`,
      account,
      {
        authorization: `Bearer ${tokens[user]}`,
      },
    );
  return { platform, auth, remote, seen, tokens, execute, connect };
}

describe('per-user connections', () => {
  it('each platform user connects their own account, and executions call as them', async () => {
    const { platform, auth, seen, tokens, execute, connect } = await setUp();
    const before = await execute('ada');
    expect(before.status).toBe(424);
    expect(before.body).toMatchObject({
      code: 'CONNECTION_REQUIRED',
      connectUrl: `${platform.url}/api/v1/solutions/s/credentials/graph/connect`,
    });

    const adaPage = await connect('ada', 'ada-account');
    expect(adaPage.status).toBe(200);
    expect(adaPage.html).toContain('ada-account is connected to ada');
    expect((await connect('bob', 'bob-account')).html).toContain('bob-account is connected to bob');

    expect((await execute('ada')).body).toMatchObject({ status: 'ok', output: { account: 'ada-account' } });
    expect((await execute('bob')).body).toMatchObject({ status: 'ok', output: { account: 'bob-account' } });

    // Who sees which connections: a user their own, an author everyone's; never a token.
    const own = await platform.api('GET', '/api/v1/solutions/s/connections', { token: tokens.ada });
    expect(own.body.connections).toEqual([
      expect.objectContaining({ key: 'graph', userName: 'ada', account: 'ada-account' }),
    ]);
    const all = await platform.api('GET', '/api/v1/solutions/s/connections', { token: tokens.alice });
    expect(all.body.connections.map((c: { userName: string }) => c.userName).sort()).toEqual(['ada', 'bob']);

    // Disconnect: the token is revoked at the provider, and it is back to CONNECTION_REQUIRED; bob
    // is unaffected.
    const adaToken = seen.at(-2)!;
    expect(await auth.isValid(adaToken)).toBe(true);
    expect(
      (
        await platform.api('DELETE', '/api/v1/solutions/s/credentials/graph/connection', {
          token: tokens.ada,
        })
      ).status,
    ).toBe(204);
    expect(await auth.isValid(adaToken)).toBe(false);
    expect((await execute('ada')).body).toMatchObject({ code: 'CONNECTION_REQUIRED' });
    expect((await execute('bob')).body).toMatchObject({ output: { account: 'bob-account' } });
    // An author revokes bob's.
    expect(
      (
        await platform.api('DELETE', '/api/v1/solutions/s/credentials/graph/connections/bob', {
          token: tokens.alice,
        })
      ).status,
    ).toBe(204);
    expect((await execute('bob')).body).toMatchObject({ code: 'CONNECTION_REQUIRED' });
    // Or all at once.
    await connect('ada', 'ada-account');
    await connect('bob', 'bob-account');
    const removed = await platform.api('DELETE', '/api/v1/solutions/s/credentials/graph/connections', {
      token: tokens.alice,
    });
    expect(removed.body).toEqual({ removed: 2 });
    expect((await execute('ada')).body).toMatchObject({ code: 'CONNECTION_REQUIRED' });
    expect(
      (
        await platform.api('DELETE', '/api/v1/solutions/s/credentials/graph/connections', {
          token: tokens.ada,
        })
      ).status,
    ).toBe(403);

    // No token the remote saw is in any answer, log line or stored byte.
    const answers = [own.text, all.text, adaPage.html].join('\n');
    const stored = bytesOf(platform.dataDir);
    for (const token of seen.filter(Boolean)) {
      expect(answers).not.toContain(token);
      expect(platform.output()).not.toContain(token);
      expect(stored).not.toContain(token);
    }
  });

  it('tokens are refreshed per user, the rotated refresh token kept', async () => {
    // Access tokens that are always within the refresh margin: every execution refreshes.
    const { platform, auth, seen, tokens, execute, connect } = await setUp(10);
    await connect('ada', 'ada-account');
    await connect('bob', 'bob-account');
    const refreshes = () => auth.grants.filter((g) => g === 'refresh_token').length;
    for (let i = 0; i < 3; i++) {
      expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
      expect((await execute('bob')).body).toMatchObject({ output: { account: 'bob-account' } });
    }
    // Each execution refreshed its own user's tokens with the latest (rotated) refresh token.
    expect(refreshes()).toBe(6);

    // The provider ends ada's grant: her next refresh is refused, which drops her connection.
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
    const adaToken = await auth.provider.AccessToken.find(seen.at(-1)!);
    await auth.provider.AccessToken.revokeByGrantId(adaToken!.grantId!);
    const refused = await execute('ada');
    expect(refused.status).toBe(424);
    expect(refused.body).toMatchObject({ code: 'CONNECTION_REQUIRED' });
    const left = await platform.api('GET', '/api/v1/solutions/s/connections', { token: tokens.alice });
    expect(left.body.connections.map((c: { userName: string }) => c.userName)).toEqual(['bob']);
    expect((await execute('bob')).body).toMatchObject({ output: { account: 'bob-account' } });
  });

  it('a forged, replayed or expired state is refused and stores nothing; a flow finished in another browser asks first', async () => {
    const { platform, tokens, execute, connect } = await setUp();
    const forged = await new TestBrowser().open(
      `${platform.url}/api/v1/oauth/callback?state=s.forged&code=abc`,
      'x',
    );
    expect(forged.status).toBe(400);
    expect(forged.html).toContain('expired or was used');

    // Bob starts a flow as an app would (the url as JSON) and gets ada's browser to finish it.
    const started = await fetch(`${platform.url}/api/v1/solutions/s/credentials/graph/connect`, {
      headers: { authorization: `Bearer ${tokens.bob}`, accept: 'application/json' },
    });
    const { url } = (await started.json()) as { url: string };
    const adaBrowser = new TestBrowser();
    const landed = await adaBrowser.open(url, 'ada-account');
    expect(landed.status).toBe(200);
    expect(landed.html).toContain('Connect ada-account to the platform user bob');
    // Nothing is stored until someone says yes.
    expect((await execute('bob')).body).toMatchObject({ code: 'CONNECTION_REQUIRED' });
    // Replaying the callback (its state) does nothing.
    const replay = await new TestBrowser().open(landed.url, 'x');
    expect(replay.status).toBe(400);

    // Ada's own flow in her own browser connects at once.
    await connect('ada', 'ada-account');
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });

    // An app's flow for bob, finished in a browser view of his (no cookie): he confirms.
    const own = (await (
      await fetch(`${platform.url}/api/v1/solutions/s/credentials/graph/connect`, {
        headers: { authorization: `Bearer ${tokens.bob}`, accept: 'application/json' },
      })
    ).json()) as { url: string };
    const view = new TestBrowser();
    const asked = await view.open(own.url, 'bob-account');
    expect(asked.html).toContain('Connect bob-account to the platform user bob');
    const yes = await view.submit(asked.url, asked.html);
    expect(yes.status).toBe(200);
    expect(yes.html).toContain('bob-account is connected to bob');
    expect((await execute('bob')).body).toMatchObject({ output: { account: 'bob-account' } });
    // The confirmation is single use too.
    expect((await view.submit(asked.url, asked.html)).status).toBe(400);
  });

  it("an author cannot send users' tokens elsewhere by storing the credential again (issue 36 row 2)", async () => {
    const { platform, tokens, execute, connect, remote } = await setUp();
    await connect('ada', 'ada-account');
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
    // The author's own server, recording whatever comes.
    const theirs = await testServer((_req, res) => json(res, 200, { stolen: true }));
    const listed = async () =>
      (
        await platform.api('GET', '/api/v1/solutions/s/credentials', { token: tokens.alice })
      ).body.credentials.find((c: { key: string }) => c.key === 'graph');
    const before = await listed();
    // What the listing shows is enough to copy the client: the same id and endpoints, no secret.
    const { hasClientSecret: _, origins: __, ...client } = before.fields;
    const restore = (body: Record<string, unknown>) =>
      platform.api('PUT', '/api/v1/solutions/s/credentials/graph', {
        token: tokens.alice,
        body: { kind: 'oauth', ...client, ...body },
      });
    // A function of the author's that sends the credential to their server.
    const steal = `provider: DATA_PROVIDER_REST
method: GET
url: ${theirs.url}/collect
parameters:
  accessToken: { location: header, type: example.oauth, value: graph }
`;
    const republished = await platform.api('PUT', '/api/v1/solutions/s', {
      token: tokens.alice,
      body: {
        files: {
          'functions/rest-get-me.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${remote.url}/me
parameters:
  accessToken: { location: header, type: example.oauth, value: graph }
`,
          'functions/rest-steal.platform': steal,
        },
      },
    });
    expect(republished.status).toBe(201);

    // Their server as the origin, given; or taken from the published functions (none given).
    for (const body of [{ origins: [theirs.url] }, {}]) {
      const refused = await restore(body);
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body.code).toBe('CREDENTIAL_IN_USE');
      expect(refused.body.message).toContain('only an admin may change');
      expect(refused.body.message).toContain('every connection is then dropped');
    }
    // Its origins as they are, the client secret removed or another given: the same refusal. The
    // same one again is no change.
    const { origins } = before.fields;
    expect((await restore({ origins })).body.code).toBe('CREDENTIAL_IN_USE');
    expect((await restore({ origins, clientSecret: 'another-secret' })).body.code).toBe('CREDENTIAL_IN_USE');
    expect((await restore({ origins, clientSecret: CLIENT_SECRET })).status).toBe(200);
    // Nothing was written by the refusals: the origins and client are as they were.
    const after = await listed();
    expect(after.fields).toEqual(before.fields);

    // Ada's token goes nowhere but the credential's own origin.
    const stolen = await execute('ada', 'rest-steal');
    expect(stolen.status).toBe(403);
    expect(stolen.body.code).toBe('CREDENTIAL_ORIGIN');
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
    expect(theirs.requests.filter((r) => r.headers.authorization !== undefined)).toEqual([]);
    expect(theirs.requests).toHaveLength(0);
    // The refusals are in the solution's audit log.
    const log = await platform.api('GET', '/api/v1/solutions/s/executions?limit=20', {
      token: platform.adminToken,
    });
    expect(
      log.body.entries.filter(
        (e: { action: string; outcome: string }) =>
          e.action === 'credential.put' && e.outcome === 'CREDENTIAL_IN_USE',
      ),
    ).toHaveLength(4);
  });

  it("an admin's new client secret keeps connections, an admin's other change drops them; removing the credential removes them", async () => {
    const { platform, auth, tokens, execute, connect } = await setUp();
    await connect('ada', 'ada-account');
    const put = (token: string, body: Record<string, unknown>) =>
      platform.api('PUT', '/api/v1/solutions/s/credentials/graph', {
        token,
        body: {
          kind: 'oauth',
          tokenEndpoint: auth.tokenEndpoint,
          authorizationEndpoint: auth.authorizationEndpoint,
          issuer: auth.issuer,
          scopes: ['openid', 'api', 'offline_access'],
          grantType: 'authorization_code',
          revocationEndpoint: `${auth.issuer}/token/revocation`,
          ...body,
        },
      });
    const admin = platform.adminToken;
    // The author gives the same client and secret again: nothing changes.
    expect((await put(tokens.alice!, { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })).status).toBe(200);
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
    // Another client: an author is refused, and the connection still works.
    expect((await put(tokens.alice!, { clientId: PUBLIC_CLIENT_ID })).status).toBe(409);
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
    // An admin rotates the client secret (at the provider, say), and back: connections stay.
    const rotated = await put(admin, { clientId: CLIENT_ID, clientSecret: 'rotated-secret-1' });
    expect(rotated.status).toBe(200);
    expect(rotated.body.connectionsDropped).toBeUndefined();
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
    expect((await put(admin, { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })).status).toBe(200);
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
    // An admin's other change (here: no revocation endpoint any more) drops them.
    const changed = await put(admin, {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      revocationEndpoint: undefined,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.connectionsDropped).toBe(1);
    const dropped = await execute('ada');
    expect(dropped.status).toBe(424);
    expect(dropped.body).toMatchObject({ code: 'CONNECTION_REQUIRED' });
    expect(
      (await platform.api('GET', '/api/v1/solutions/s/connections', { token: tokens.alice })).body,
    ).toEqual({
      connections: [],
    });
    // With no one connected, the author changes the client as before.
    expect((await put(tokens.alice!, { clientId: PUBLIC_CLIENT_ID })).status).toBe(200);
    // Back to the confidential client; connect again, then remove the credential.
    await put(tokens.alice!, { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    await connect('ada', 'ada-account');
    expect(
      (await platform.api('DELETE', '/api/v1/solutions/s/credentials/graph', { token: tokens.alice })).status,
    ).toBe(204);
    expect(
      (await platform.api('GET', '/api/v1/solutions/s/connections', { token: tokens.alice })).body,
    ).toEqual({
      connections: [],
    });
  });

  it('restfn connect KEY --server prints the address; the browser that opens it confirms, and the platform calls as that user', async () => {
    const { platform, tokens, execute } = await setUp();
    const printed = await runCli([
      'connect',
      'graph',
      '--server',
      platform.url,
      '--token',
      tokens.ada!,
      '--name',
      's',
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stderr).toContain('Open this address in a browser');
    const browser = new TestBrowser();
    const asked = await browser.open(printed.stdout.trim(), 'ada-account');
    expect(asked.html).toContain('Connect ada-account to the platform user ada');
    expect((await browser.submit(asked.url, asked.html)).html).toContain('ada-account is connected to ada');
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
    const local = await runCli(['connect', 'graph'], { cwd: platform.dataDir });
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('restfn login graph');
  });

  it('a solution named with a dot connects; a user removed takes their connections along; the callback is logged without its code', async () => {
    const { platform, tokens, execute, connect } = await setUp(300, 'acme.crm');
    expect((await connect('ada', 'ada-account')).html).toContain('ada-account is connected to ada');
    expect((await execute('ada')).body).toMatchObject({ output: { account: 'ada-account' } });
    expect(platform.output()).toMatch(/"url":"\/api\/v1\/oauth\/callback"/);
    expect(platform.output()).not.toMatch(/oauth\/callback\?/);
    expect((await platform.api('DELETE', '/api/v1/users/ada', { token: platform.adminToken })).status).toBe(
      204,
    );
    const left = await platform.api('GET', '/api/v1/solutions/acme.crm/connections', { token: tokens.alice });
    expect(left.body).toEqual({ connections: [] });
  });

  it('a confirmation after the credential was given another client keeps nothing', async () => {
    const { platform, auth, tokens, execute } = await setUp();
    const { url } = (await (
      await fetch(`${platform.url}/api/v1/solutions/s/credentials/graph/connect`, {
        headers: { authorization: `Bearer ${tokens.bob}`, accept: 'application/json' },
      })
    ).json()) as { url: string };
    const view = new TestBrowser();
    const asked = await view.open(url, 'bob-account');
    expect(asked.html).toContain('Connect bob-account to the platform user bob');
    // Meanwhile the author points the credential at another client.
    await platform.api('PUT', '/api/v1/solutions/s/credentials/graph', {
      token: tokens.alice,
      body: {
        kind: 'oauth',
        tokenEndpoint: auth.tokenEndpoint,
        authorizationEndpoint: auth.authorizationEndpoint,
        issuer: auth.issuer,
        clientId: PUBLIC_CLIENT_ID,
        grantType: 'authorization_code',
      },
    });
    const late = await view.submit(asked.url, asked.html);
    expect(late.status).toBe(400);
    expect(late.html).toContain('was removed or given another client while connecting; nothing was kept');
    expect((await execute('bob')).body).toMatchObject({ code: 'CONNECTION_REQUIRED' });
  });
});
