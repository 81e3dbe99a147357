import { describe, expect, it } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { functionFile, solutionWithKey, startPlatformProcess } from '../helpers/platform.js';

// The security review of `restfn targets` (issue 38's API): who may change the list, what a name
// or a list can do to the platform, and how long the list may grow.

const PASSWORD = 'correct-horse-7Kq2';

async function signIn(url: string, name: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${url}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  const csrf = ((await res.json()) as { csrfToken: string }).csrfToken;
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, csrf };
}

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

describe('restfn targets: the security review', () => {
  it('only an admin changes targets, by token or by a console session with its CSRF token', async () => {
    const platform = await startPlatformProcess();
    const admin = platform.adminToken;
    for (const [name, role] of [
      ['root', 'admin'],
      ['alice', 'author'],
      ['carol', 'user'],
    ] as const) {
      const added = await platform.api('POST', '/api/v1/users', {
        token: admin,
        body: { name, role, solutions: ['crm'], password: PASSWORD },
      });
      expect(added.status, added.text).toBe(201);
    }
    const tokenOf = async (name: string) =>
      (await platform.api('POST', `/api/v1/users/${name}/tokens`, { token: admin, body: {} })).body
        .token as string;
    const body = { solution: 'crm', host: '10.0.0.5' };
    for (const name of ['alice', 'carol']) {
      const token = await tokenOf(name);
      for (const [method, path] of [
        ['GET', '/api/v1/targets'],
        ['POST', '/api/v1/targets'],
        ['DELETE', '/api/v1/targets/crm/10.0.0.5'],
      ] as const) {
        const refused = await platform.api(method, path, { token, ...(method === 'POST' ? { body } : {}) });
        expect(refused.body, `${name} ${method}`).toMatchObject({ code: 'FORBIDDEN' });
      }
      // A member's console session, with its CSRF token, is no admin either.
      const session = await signIn(platform.url, name);
      const viaCookie = await withCookie(
        platform.url,
        'POST',
        '/api/v1/targets',
        session.cookie,
        session.csrf,
        body,
      );
      expect(viaCookie.body).toMatchObject({ code: 'FORBIDDEN' });
    }
    // An admin's session cookie alone (a page on another site making the browser post) is refused.
    const root = await signIn(platform.url, 'root');
    const forged = await withCookie(platform.url, 'POST', '/api/v1/targets', root.cookie, undefined, body);
    expect(forged.body).toMatchObject({ code: 'CSRF_INVALID' });
    const removeForged = await withCookie(
      platform.url,
      'DELETE',
      '/api/v1/targets/crm/10.0.0.5',
      root.cookie,
    );
    expect(removeForged.body).toMatchObject({ code: 'CSRF_INVALID' });
    // Without anything: no list either.
    expect((await platform.api('GET', '/api/v1/targets')).body).toMatchObject({ code: 'AUTH_REQUIRED' });
    expect((await platform.api('GET', '/api/v1/targets', { token: admin })).body.targets).toEqual([]);
    // With its CSRF token, the admin's session may.
    const added = await withCookie(platform.url, 'POST', '/api/v1/targets', root.cookie, root.csrf, body);
    expect(added.status).toBe(201);
    const audit = await platform.api('GET', '/api/v1/audit?action=target.add', { token: admin });
    expect(audit.body.entries).toMatchObject([{ actor: 'root', target: 'crm=10.0.0.5', outcome: 'ok' }]);
  });

  it('a solution named like an object property (constructor, valueOf) runs and has targets like any other', async () => {
    const service = await testServer((req, res) => json(res, 200, { path: req.url }));
    const port = new URL(service.url).port;
    const platform = await startPlatformProcess();
    const admin = platform.adminToken;
    const published = await platform.api('PUT', '/api/v1/solutions/constructor', {
      token: admin,
      body: { files: { 'functions/rest-get-orders.platform': functionFile(`${service.url}/orders`) } },
    });
    expect(published.status, published.text).toBe(201);
    const execute = () =>
      platform.api('POST', '/api/v1/solutions/constructor/functions/rest-get-orders/execute', {
        token: admin,
        body: {},
      });
    // The loopback service is a private target: refused in so many words, not an internal error.
    expect((await execute()).body).toMatchObject({ code: 'TARGET_REFUSED' });
    const add = await platform.api('POST', '/api/v1/targets', {
      token: admin,
      body: { solution: 'constructor', host: `127.0.0.1:${port}` },
    });
    expect(add.status, add.text).toBe(201);
    expect((await execute()).body).toMatchObject({ status: 'ok', output: { path: '/orders' } });
    expect((await platform.api('GET', '/api/v1/targets', { token: admin })).body.targets).toEqual([
      { solution: 'constructor', host: `127.0.0.1:${port}`, from: 'api' },
    ]);
    const notThere = await platform.api('DELETE', '/api/v1/targets/valueOf/10.0.0.5', { token: admin });
    expect(notThere.body).toMatchObject({ code: 'TARGET_NOT_FOUND' });
    const removed = await platform.api('DELETE', `/api/v1/targets/constructor/127.0.0.1%3A${port}`, {
      token: admin,
    });
    expect(removed.status, removed.text).toBe(200);
    expect((await execute()).body).toMatchObject({ code: 'TARGET_REFUSED' });
    expect(platform.output()).not.toContain('unexpected error');
  });

  it("a target opens an address, never a credential's way: the key still goes only to its own origin", async () => {
    const SECRET = 'sk_review_targets_7Qw2';
    const own = await testServer((req, res) =>
      json(res, 200, { key: req.headers['x-api-key'] ? 'sent' : 'none' }),
    );
    const other = await testServer((req, res) =>
      json(res, 200, { key: req.headers['x-api-key'] ? 'sent' : 'none' }),
    );
    const platform = await startPlatformProcess();
    const keyed = (url: string) =>
      functionFile(url, 'parameters:\n  x-api-key: { location: header, type: secret, value: api-key }\n');
    const { author } = await solutionWithKey(
      platform,
      {
        'functions/rest-get-own.platform': keyed(`${own.url}/a`),
        'functions/rest-get-other.platform': keyed(`${other.url}/b`),
      },
      { secret: SECRET, origins: [own.url] },
    );
    // Every port of the loopback address, for this solution.
    const added = await platform.api('POST', '/api/v1/targets', {
      token: platform.adminToken,
      body: { solution: 's', host: '127.0.0.1' },
    });
    expect(added.status).toBe(201);
    const run = (fn: string) =>
      platform.api('POST', `/api/v1/solutions/s/functions/${fn}/execute`, { token: author, body: {} });
    expect((await run('rest-get-own')).body).toMatchObject({ status: 'ok', output: { key: 'sent' } });
    expect((await run('rest-get-other')).body).toMatchObject({ code: 'CREDENTIAL_ORIGIN' });
    expect(other.requests.filter((r) => JSON.stringify(r).includes(SECRET))).toEqual([]);
  });

  it('a solution has at most 100 targets from the API: the next is refused and nothing changes', async () => {
    const platform = await startPlatformProcess();
    const admin = platform.adminToken;
    const add = (solution: string, host: string) =>
      platform.api('POST', '/api/v1/targets', { token: admin, body: { solution, host } });
    for (let i = 0; i < 100; i++) expect((await add('crm', `10.0.${i >> 8}.${i & 0xff}`)).status).toBe(201);
    const refused = await add('crm', '10.1.0.1');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'TARGET_LIMIT' });
    expect(refused.body.message).toContain("solution 'crm' has 100 allowed targets");
    // One already there is no new entry; another solution has its own hundred.
    expect((await add('crm', '10.0.0.7')).body).toMatchObject({ added: false });
    expect((await add('hr', '10.1.0.1')).status).toBe(201);
    const listed = (await platform.api('GET', '/api/v1/targets', { token: admin })).body.targets;
    expect(listed.filter((t: { solution: string }) => t.solution === 'crm')).toHaveLength(100);
    const audit = await platform.api('GET', '/api/v1/audit?action=target.add&limit=1000', { token: admin });
    expect(audit.body.entries.some((e: { target: string }) => e.target === 'crm=10.1.0.1')).toBe(false);
  });
});
