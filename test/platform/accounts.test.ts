import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SignInLimit } from '../../src/platform/auth/sign-in-limit.js';
import type { Counters } from '../../src/platform/rate-limit-counters.js';
import { runCli } from '../helpers/cli.js';
import { bytesOf, type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';

/** Signs in with extra headers; the status, code and Set-Cookie. */
async function signIn(
  platform: PlatformProcess,
  name: string,
  password: string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${platform.url}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ name, password }),
  });
  const body = (await res.json()) as { code?: string };
  return {
    status: res.status,
    code: body.code,
    cookie: res.headers.get('set-cookie') ?? '',
    retryAfter: res.headers.get('retry-after'),
  };
}

async function addUser(platform: PlatformProcess, name: string, role = 'user') {
  const made = await platform.api('POST', '/api/v1/users', {
    token: platform.adminToken,
    body: { name, role, password: `${name}-password-123` },
  });
  expect(made.status).toBe(201);
}

describe('sign-in limits', () => {
  it('are per account and address whatever headers come along; 429 at once; other requests and accounts pass', async () => {
    const platform = await startPlatformProcess();
    await addUser(platform, 'bob');
    await addUser(platform, 'carol');
    const answers = [];
    // A made-up bearer token on each attempt once gave every guess a fresh window.
    for (let i = 0; i < 11; i++)
      answers.push(await signIn(platform, 'bob', `guess-${i}`, { authorization: `Bearer junk${i}` }));
    expect(answers.slice(0, 10).map((a) => a.code)).toEqual(Array(10).fill('SIGN_IN_FAILED'));
    expect(answers[10]).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(answers[10]!.retryAfter)).toBeGreaterThan(0);
    // Even the right password waits now (from this address)...
    expect((await signIn(platform, 'bob', 'bob-password-123')).status).toBe(429);
    // ...but another account signs in, and the address's other requests pass.
    expect((await signIn(platform, 'carol', 'carol-password-123')).status).toBe(200);
    expect((await platform.api('GET', '/api/v1/me', { token: platform.adminToken })).status).toBe(200);
  });

  it('the window grows for an account that keeps failing from one address (10 a minute, then 10 in 10 minutes)', () => {
    let now = 0;
    const windows = new Map<string, { count: number; reset: number }>();
    const counters: Counters = {
      hit(key, windowMs) {
        let w = windows.get(key);
        if (!w || w.reset <= now) {
          w = { count: 0, reset: now + windowMs };
          windows.set(key, w);
        }
        w.count++;
        return { current: w.count, ttl: w.reset - now };
      },
      peek(key) {
        const w = windows.get(key);
        return !w || w.reset <= now ? { current: 0, ttl: 0 } : { current: w.count, ttl: w.reset - now };
      },
      store: undefined as never,
    };
    const limit = new SignInLimit(counters);
    const guess = () => {
      try {
        limit.attempt('bob', '10.0.0.9');
        limit.failed('bob', '10.0.0.9');
        return 'tried';
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    const minute = () => Array.from({ length: 12 }, guess);
    expect(minute()).toEqual([...Array(10).fill('tried'), 'RATE_LIMITED', 'RATE_LIMITED']);
    now += 60_000;
    expect(minute()).toEqual([...Array(10).fill('tried'), 'RATE_LIMITED', 'RATE_LIMITED']);
    // 20 failures: the next minutes give nothing until the 10 minutes have passed.
    for (let m = 2; m < 10; m++) {
      now += 60_000;
      expect(minute().filter((r) => r === 'tried')).toHaveLength(0);
    }
    now += 60_000;
    expect(minute().filter((r) => r === 'tried')).toHaveLength(10);
    // Another address is not locked out by this one's guesses.
    expect(() => limit.attempt('bob', '10.0.0.10')).not.toThrow();
  });
});

describe('--trust-proxy', () => {
  it("X-Forwarded-For and -Proto count only from the proxies named: the client's address and the Secure cookie", async () => {
    const direct = await startPlatformProcess();
    await addUser(direct, 'bob');
    const spoofed = await signIn(direct, 'bob', 'bob-password-123', { 'x-forwarded-proto': 'https' });
    expect(spoofed.status).toBe(200);
    expect(spoofed.cookie).not.toMatch(/;\s*Secure/i);
    // Untrusted X-Forwarded-For does not give a fresh sign-in window.
    for (let i = 0; i < 10; i++) await signIn(direct, 'bob', 'wrong', { 'x-forwarded-for': `10.1.0.${i}` });
    expect((await signIn(direct, 'bob', 'wrong', { 'x-forwarded-for': '10.1.1.1' })).status).toBe(429);

    const proxied = await startPlatformProcess({ args: ['--trust-proxy', '127.0.0.1/32'] });
    await addUser(proxied, 'bob');
    const secure = await signIn(proxied, 'bob', 'bob-password-123', { 'x-forwarded-proto': 'https' });
    expect(secure.cookie).toMatch(/;\s*Secure/i);
    for (let i = 0; i < 10; i++) await signIn(proxied, 'bob', 'wrong', { 'x-forwarded-for': '10.1.0.1' });
    expect((await signIn(proxied, 'bob', 'wrong', { 'x-forwarded-for': '10.1.0.1' })).status).toBe(429);
    // Behind the proxy, each client has its own window.
    expect((await signIn(proxied, 'bob', 'wrong', { 'x-forwarded-for': '10.1.0.2' })).status).toBe(401);

    const bad = await runCli(['serve', '--port', '0', '--trust-proxy', 'everyone']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--trust-proxy takes an IP address or a CIDR range');
  });
});

describe('request limits count per user, and tokens per user are capped', () => {
  it('minting new tokens buys no more requests', async () => {
    const platform = await startPlatformProcess({ args: ['--rate-limit', '6'] });
    await addUser(platform, 'mallory');
    const statuses: number[] = [];
    let token = (
      await platform.api('POST', '/api/v1/users/mallory/tokens', { token: platform.adminToken, body: {} })
    ).body.token as string;
    for (let i = 0; i < 4; i++) {
      // Each round: one request with the token, then a fresh token made with it.
      statuses.push((await platform.api('GET', '/api/v1/me', { token })).status);
      const next = await platform.api('POST', '/api/v1/users/mallory/tokens', { token, body: {} });
      statuses.push(next.status);
      if (next.status === 201) token = next.body.token;
    }
    expect(statuses).toEqual([200, 201, 200, 201, 200, 201, 429, 429]);
  });

  it('a user holds at most 50 live tokens (TOKEN_LIMIT, 409); revoking one makes room', async () => {
    const platform = await startPlatformProcess();
    await addUser(platform, 'dave');
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const made = await platform.api('POST', '/api/v1/users/dave/tokens', {
        token: platform.adminToken,
        body: {},
      });
      expect(made.status).toBe(201);
      ids.push(made.body.id);
    }
    const over = await platform.api('POST', '/api/v1/users/dave/tokens', {
      token: platform.adminToken,
      body: {},
    });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ code: 'TOKEN_LIMIT' });
    expect(over.body.message).toContain('revoke unused ones first');
    await platform.api('DELETE', `/api/v1/users/dave/tokens/${ids[0]}`, {
      token: platform.adminToken,
      body: {},
    });
    expect(
      (await platform.api('POST', '/api/v1/users/dave/tokens', { token: platform.adminToken, body: {} }))
        .status,
    ).toBe(201);
  });
});

describe('operations', () => {
  it('a second restfn serve on the same --data is refused at once (DATA_IN_USE); the first is untouched and keeps serving', async () => {
    const root = mkdtempSync(join(tmpdir(), 'restfn-lock-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const first = await startPlatformProcess({ root });
    const before = bytesOf(first.dataDir);
    const second = await runCli([
      'serve',
      '--port',
      '0',
      '--data',
      first.dataDir,
      '--master-key-file',
      first.keyFile,
    ]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('DATA_IN_USE');
    expect(second.stderr).toContain('another restfn serve is running on');
    expect(bytesOf(first.dataDir).length).toBe(before.length);
    expect((await first.api('GET', '/api/v1/me', { token: first.adminToken })).status).toBe(200);
    // Once the first stops, the folder is free.
    await first.stop();
    const again = await startPlatformProcess({ root });
    expect((await again.api('GET', '/healthz')).status).toBe(200);
  });

  it("a publish where a file is also another file's folder is 400 REQUEST_INVALID, nothing kept", async () => {
    const platform = await startPlatformProcess();
    const clash = await platform.api('PUT', '/api/v1/solutions/s', {
      token: platform.adminToken,
      body: {
        files: {
          'functions/x.platform': 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://example.com\n',
          'functions/x.platform/y.platform':
            'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://example.com\n',
        },
      },
    });
    expect(clash.status).toBe(400);
    expect(clash.body).toMatchObject({ code: 'REQUEST_INVALID' });
    expect(clash.body.message).toContain("'functions/x.platform' is a file and the folder of");
    expect((await platform.api('GET', '/api/v1/solutions/s', { token: platform.adminToken })).status).toBe(
      404,
    );
  });
});

describe('the audit of accounts', () => {
  it('sign-ins, user and token events, and refused requests (counted, not a row each) are readable by admins only', async () => {
    const platform = await startPlatformProcess();
    await addUser(platform, 'erin');
    await signIn(platform, 'erin', 'wrong');
    await signIn(platform, 'erin', 'erin-password-123');
    const erin = (
      await platform.api('POST', '/api/v1/users/erin/tokens', { token: platform.adminToken, body: {} })
    ).body.token as string;
    for (let i = 0; i < 3; i++) await platform.api('GET', '/api/v1/me', { token: `rfn_junk${i}` });
    expect((await platform.api('GET', '/api/v1/users', { token: erin })).status).toBe(403);
    expect((await platform.api('GET', '/api/v1/audit', { token: erin })).status).toBe(403);

    const audit = await platform.api('GET', '/api/v1/audit', { token: platform.adminToken });
    expect(audit.status).toBe(200);
    const rows = audit.body.entries as Array<{
      action: string;
      actor: string;
      target: string;
      outcome: string;
      detail: string | null;
    }>;
    const seen = rows.map((r) => `${r.action} ${r.actor} ${r.target} ${r.outcome}`);
    expect(seen).toContain('user.add admin erin ok');
    expect(seen).toContain('sign-in anonymous erin SIGN_IN_FAILED');
    const failedSignIn = rows.find((r) => r.action === 'sign-in' && r.outcome === 'SIGN_IN_FAILED');
    expect(JSON.parse(failedSignIn!.detail!)).toMatchObject({ count: 1, address: '127.0.0.1' });
    expect(seen).toContain('sign-in erin erin ok');
    expect(seen).toContain('token.create admin erin ok');
    expect(seen).toContain('denied erin GET /api/v1/users FORBIDDEN');
    // Three refused tokens: one entry that counts them.
    const unknown = rows.filter((r) => r.action === 'denied' && r.outcome === 'AUTH_REQUIRED');
    expect(unknown).toHaveLength(1);
    expect(JSON.parse(unknown[0]!.detail!)).toMatchObject({ count: 3, address: '127.0.0.1' });
    const filtered = await platform.api('GET', '/api/v1/audit?action=sign-in&outcome=ok', {
      token: platform.adminToken,
    });
    expect(filtered.body.entries.map((r: { actor: string }) => r.actor)).toEqual(['erin']);
  });
});

describe('failed sign-ins are counted, not a row each (issue 36, row 9)', () => {
  it('a flood of made-up names is one audit entry per address and minute, naming none of them', async () => {
    const platform = await startPlatformProcess();
    await addUser(platform, 'erin');
    // Each name is fresh: the per-account limit never stops them.
    for (let i = 0; i < 40; i++)
      expect((await signIn(platform, `nobody-${i}`, 'x')).code).toBe('SIGN_IN_FAILED');
    await signIn(platform, 'erin', 'wrong');
    await signIn(platform, 'erin', 'wrong again');
    const audit = await platform.api('GET', '/api/v1/audit?action=sign-in', { token: platform.adminToken });
    const rows = audit.body.entries as Array<{
      actor: string;
      target: string;
      outcome: string;
      detail: string;
    }>;
    expect(rows.map((r) => `${r.actor} ${r.target} ${r.outcome}`).sort()).toEqual([
      'anonymous (unknown name) SIGN_IN_FAILED',
      'anonymous erin SIGN_IN_FAILED',
    ]);
    expect(audit.text).not.toContain('nobody-');
    const unknown = rows.find((r) => r.target === '(unknown name)')!;
    expect(JSON.parse(unknown.detail)).toMatchObject({ count: 40, address: '127.0.0.1' });
    const erin = rows.find((r) => r.target === 'erin')!;
    expect(JSON.parse(erin.detail)).toMatchObject({ count: 2, address: '127.0.0.1' });
  });
});

describe('restfn serve reset-admin', () => {
  it("prints a new admin token, usable at once by the running platform; names an unknown admin's alternatives", async () => {
    const platform = await startPlatformProcess();
    const reset = await runCli(['serve', 'reset-admin', '--data', platform.dataDir]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stderr).toContain("a new API token for admin 'admin'");
    const token = reset.stdout.trim();
    expect(token).toMatch(/^rfn_/);
    expect(await platform.api('GET', '/api/v1/me', { token })).toMatchObject({
      status: 200,
      body: { name: 'admin', role: 'admin' },
    });
    const wrong = await runCli(['serve', 'reset-admin', '--data', platform.dataDir, '--user', 'nobody']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("no admin named 'nobody'; the admins are 'admin'");
    // A second user of the same name: the message says how to change the one there is.
    const again = await platform.api('POST', '/api/v1/users', {
      token,
      body: { name: 'admin', role: 'user' },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('restfn users set admin');
  });
});
