import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { authServer, CLIENT_ID, CLIENT_SECRET } from '../helpers/oauth-server.js';
import { type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';

/** An author token for solution `crm` on `platform`, and a publish of `functions`. */
async function authorOf(platform: PlatformProcess, functions: Record<string, string>) {
  await platform.api('POST', '/api/v1/users', {
    token: platform.adminToken,
    body: { name: 'alice', role: 'author', solutions: ['crm'] },
  });
  const token = (
    await platform.api('POST', '/api/v1/users/alice/tokens', { token: platform.adminToken, body: {} })
  ).body.token as string;
  const files = Object.fromEntries(
    Object.entries(functions).map(([name, url]) => [
      `functions/${name}.platform`,
      // A name ending in -open calls without the credential (a credential never follows a redirect elsewhere).
      `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}\n${name.endsWith('-open') ? '' : 'parameters:\n  x-api-key: { location: header, type: secret, value: api-key }\n'}`,
    ]),
  );
  const published = await platform.api('PUT', '/api/v1/solutions/crm', { token, body: { files } });
  expect(published.status).toBe(201);
  await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
    token,
    body: { kind: 'secret', value: 'k-4Fh8sQ2mX7vL9pR3wZ6t' },
  });
  const execute = (name: string) =>
    platform.api('POST', `/api/v1/solutions/crm/functions/${name}/execute`, { token, body: {} });
  return { token, execute };
}

describe('the platform does not call its own network (SSRF)', () => {
  it('refuses loopback, a name resolving to it, link-local metadata, and a redirect from an allowed host to loopback', async () => {
    const hits: string[] = [];
    const service = await testServer((req, res) => {
      hits.push(req.url);
      if (req.url === '/hop') res.writeHead(302, { location: `${service.url}/inside` }).end();
      else json(res, 200, { ok: req.url });
    });
    const port = new URL(service.url).port;
    const platform = await startPlatformProcess({ args: ['--allow-target', 'crm=localhost'] });
    const { execute } = await authorOf(platform, {
      'rest-loopback': `${service.url}/direct`,
      'rest-metadata': 'http://169.254.169.254/latest/meta-data/',
      // IPv4-mapped IPv6: the URL parser writes it as [::ffff:7f00:1].
      'rest-mapped': `http://[::ffff:127.0.0.1]:${port}/mapped`,
      'rest-allowed': `http://localhost:${port}/allowed`,
      'rest-hop-open': `http://localhost:${port}/hop`,
    });
    for (const name of ['rest-loopback', 'rest-metadata', 'rest-mapped']) {
      const answer = await execute(name);
      expect(answer.status, name).toBe(403);
      expect(answer.body).toMatchObject({ status: 'error', code: 'TARGET_REFUSED' });
      expect(answer.body.message).toMatch(/is a (loopback|link-local) address/);
    }
    // The allowlisted name goes through; its redirect to a loopback IP does not.
    expect((await execute('rest-allowed')).body).toMatchObject({ status: 'ok', output: { ok: '/allowed' } });
    const hop = await execute('rest-hop-open');
    expect(hop.body).toMatchObject({ code: 'TARGET_REFUSED' });
    // The request was sent; its redirect was not followed (not "was not sent").
    expect(hop.body.message).toBe(
      `GET http://localhost:${port}/hop redirects to a target that is refused; not followed: the target 127.0.0.1 is a loopback address; the platform does not call such addresses unless an admin allows it (restfn targets add SOLUTION HOST[:PORT]; or restfn serve --allow-target SOLUTION=HOST[:PORT], or --allow-private-targets)`,
    );
    expect(hits).toEqual(['/allowed', '/hop']);

    // Without the allowlist, the name that resolves to loopback is refused at connect time.
    const strict = await startPlatformProcess();
    const { execute: strictly } = await authorOf(strict, { 'rest-named': `http://localhost:${port}/named` });
    const named = await strictly('rest-named');
    expect(named.body).toMatchObject({ code: 'TARGET_REFUSED' });
    expect(named.body.message).toContain(`localhost (127.0.0.1) is a loopback address`);
    expect(hits).toEqual(['/allowed', '/hop']);
  });

  it('refuses every reserved IPv6 range, the forms that embed an IPv4 address too (issue 36, row 9)', async () => {
    const platform = await startPlatformProcess();
    const targets = {
      'rest-site-local-open': ['http://[fec0::1]/x', 'site-local'],
      'rest-translated-open': ['http://[::ffff:0:127.0.0.1]/x', 'IPv4-translated'],
      'rest-nat64-local-open': ['http://[64:ff9b:1::10.0.0.1]/x', 'local-use NAT64'],
      'rest-documentation-open': ['http://[2001:db8::1]/x', 'documentation'],
      'rest-discard-open': ['http://[100::1]/x', 'discard-only'],
      'rest-orchid-open': ['http://[2001:20::1]/x', 'ORCHIDv2'],
    } as const;
    const { execute } = await authorOf(
      platform,
      Object.fromEntries(Object.entries(targets).map(([name, [url]]) => [name, url])),
    );
    for (const [name, [, kind]] of Object.entries(targets)) {
      const answer = await execute(name);
      expect(answer.status, name).toBe(403);
      expect(answer.body, name).toMatchObject({ status: 'error', code: 'TARGET_REFUSED' });
      expect(answer.body.message, name).toContain(kind);
      expect(answer.body.message, name).toContain('was not sent');
    }
  });
});

describe('the token endpoint is held to the same rule', () => {
  it('an OAuth token request to a loopback address is refused before it is sent', async () => {
    const auth = await authServer('http://127.0.0.1/unused');
    const service = await testServer((_, res) => json(res, 200, { ok: true }));
    const port = new URL(service.url).port;
    const platform = await startPlatformProcess({ args: ['--allow-target', 'crm=localhost'] });
    const { token } = await authorOf(platform, { 'rest-placeholder': 'https://example.com/x' });
    await platform.api('PUT', '/api/v1/solutions/crm', {
      token,
      body: {
        files: {
          'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://localhost:${port}/orders\nparameters:\n  authorization: { location: header, type: oauth, value: erp }\n`,
        },
      },
    });
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/erp', {
      token,
      body: {
        kind: 'oauth',
        tokenEndpoint: auth.tokenEndpoint,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
      },
    });
    const answer = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-orders/execute', {
      token,
      body: {},
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ code: 'TARGET_REFUSED' });
    expect(answer.body.message).toContain('the token request to http://127.0.0.1');
    expect(auth.grants).toEqual([]);
  });
});

describe('restfn serve stops gracefully', () => {
  it('SIGTERM lets an execution in flight finish, then the process exits 0', async () => {
    let release: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      void testServer(async (_, res) => {
        resolve();
        await new Promise<void>((r) => {
          release = r;
        });
        json(res, 200, { slow: true });
      }).then((s) => {
        slowUrl = s.url;
      });
    });
    let slowUrl = '';
    while (!slowUrl) await new Promise((r) => setTimeout(r, 5));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { execute } = await authorOf(platform, { 'rest-slow': `${slowUrl}/slow` });
    const pending = execute('rest-slow');
    await arrived;
    const stopped = platform.stop('SIGTERM');
    // The signal is in; the answer is still owed.
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect((await pending).body).toMatchObject({ status: 'ok', output: { slow: true } });
    const ended = await stopped;
    expect(ended.code).toBe(0);
    expect(platform.output()).toContain('restfn: SIGTERM: finishing the requests in flight, then stopping');
    expect(platform.output()).toContain('restfn: platform stopped');
  });
});

describe('restfn serve rotate-key', () => {
  it('re-wraps every data key under a new master key; the old key no longer opens the vault', async () => {
    const service = await testServer((req, res) =>
      json(res, req.headers['x-api-key'] === 'k-4Fh8sQ2mX7vL9pR3wZ6t' ? 200 : 401, { ok: true }),
    );
    const root = mkdtempSync(join(tmpdir(), 'restfn-rotate-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const first = await startPlatformProcess({ root, args: ['--allow-private-targets'] });
    const { token } = await authorOf(first, { 'rest-get': `${service.url}/x` });
    await first.stop();
    const before = readFileSync(first.keyFile, 'utf8');

    const running = await startPlatformProcess({ root, args: ['--allow-private-targets'] });
    const refused = await runCli([
      'serve',
      'rotate-key',
      '--data',
      running.dataDir,
      '--master-key-file',
      running.keyFile,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the platform is running');
    await running.stop();

    const rotated = await runCli([
      'serve',
      'rotate-key',
      '--data',
      first.dataDir,
      '--master-key-file',
      first.keyFile,
    ]);
    expect(rotated.stderr).toContain('restfn: 1 credential(s) re-encrypted');
    expect(rotated.code).toBe(0);
    expect(readFileSync(first.keyFile, 'utf8')).not.toBe(before);
    // The old key is kept under its own id: a second rotation cannot overwrite it.
    const kept = readdirSync(dirname(first.keyFile)).filter((f) => f.startsWith('master.key.previous-'));
    expect(kept).toHaveLength(1);
    const previous = join(dirname(first.keyFile), kept[0]!);
    expect(readFileSync(previous, 'utf8')).toBe(before);
    expect(existsSync(`${first.keyFile}.next`)).toBe(false);

    const after = await startPlatformProcess({ root, args: ['--allow-private-targets'] });
    const ok = await after.api('POST', '/api/v1/solutions/crm/functions/rest-get/execute', {
      token,
      body: {},
    });
    expect(ok.body).toMatchObject({ status: 'ok' });
    await after.stop();

    // With the old key the platform does not start: it says which key the data needs.
    const old = await startPlatformProcess({
      root,
      args: ['--allow-private-targets', '--master-key-file', previous],
    }).catch((error: Error) => error);
    expect(old).toBeInstanceOf(Error);
    expect((old as Error).message).toContain('restfn: error CREDENTIAL_KEY_INVALID: the master key given');
  });
});

describe('rate limits', () => {
  it('per token: the request over --rate-limit is 429 RATE_LIMITED; another token still passes; sign-in has its own', async () => {
    const platform = await startPlatformProcess({ args: ['--rate-limit', '5'] });
    const admin = platform.adminToken;
    // The admin's first requests make a user and a token (they count too).
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'bob', role: 'user', password: 'bob-password-123' },
    });
    const bob = (await platform.api('POST', '/api/v1/users/bob/tokens', { token: admin, body: {} })).body
      .token as string;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await platform.api('GET', '/api/v1/me', { token: admin }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers[3]!.body).toMatchObject({ status: 'error', code: 'RATE_LIMITED' });
    expect(answers[3]!.body.message).toContain('more than 5 requests per minute');
    expect(Number(answers[3]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await platform.api('GET', '/api/v1/me', { token: bob })).status).toBe(200);
    // Without a token, requests count per address; signing in counts apart (10 a minute).
    const anonymous = [];
    for (let i = 0; i < 6; i++) anonymous.push((await platform.api('GET', '/api/v1/me')).status);
    expect(anonymous).toEqual([401, 401, 401, 401, 401, 429]);
    const signIn = await platform.api('POST', '/api/v1/session', {
      body: { name: 'bob', password: 'bob-password-123' },
    });
    expect(signIn.status).toBe(200);
  });

  it('/healthz is outside the rate limit: a balancer probing often never gets 429 (issue 36, row 9)', async () => {
    const platform = await startPlatformProcess({ args: ['--rate-limit', '3'] });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await fetch(`${platform.url}/healthz`)).status);
    expect(statuses).toEqual(Array(10).fill(200));
    // The address's other requests are still limited.
    const others = [];
    for (let i = 0; i < 4; i++) others.push((await platform.api('GET', '/api/v1/me')).status);
    expect(others).toEqual([401, 401, 401, 429]);
  });
});
