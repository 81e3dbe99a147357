import { describe, expect, it } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';

const SECRET = 'pk-7Wq2Lr9Xv4Nc8Ts3Hm6Z';

/** Users `alice` (author) and `carol` (user) of solution `crm`, its files published, a secret stored. */
async function crm(platform: PlatformProcess, files: Record<string, string>) {
  const admin = platform.adminToken;
  const tokenOf = async (name: string, role: string) => {
    await platform.api('POST', '/api/v1/users', { token: admin, body: { name, role, solutions: ['crm'] } });
    return (await platform.api('POST', `/api/v1/users/${name}/tokens`, { token: admin, body: {} })).body
      .token as string;
  };
  const author = await tokenOf('alice', 'author');
  const user = await tokenOf('carol', 'user');
  expect(
    (await platform.api('PUT', '/api/v1/solutions/crm', { token: author, body: { files } })).status,
  ).toBe(201);
  for (const [key, value, origins] of [
    ['api-key', SECRET, undefined],
    // Named by no function: it says where it may go.
    ['other-key', 'ok-5Dg8Jy2Pw7Bn4Rf9Kx3Q', ['https://other.example.com']],
  ] as const) {
    const stored = await platform.api('PUT', `/api/v1/solutions/crm/credentials/${key}`, {
      token: author,
      body: { kind: 'secret', value, ...(origins ? { origins } : {}) },
    });
    expect(stored.status).toBeLessThan(300);
  }
  return { author, user };
}

describe("a caller's next link (POST .../call with continuation)", () => {
  it("goes only to the function's own origin: a user cannot send the continuation's credential elsewhere", async () => {
    const service = await testServer((req, res) => json(res, 200, { path: req.url }));
    const elsewhere = await testServer((req, res) =>
      json(res, 200, { got: req.headers['x-api-key'] ?? null }),
    );
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { user } = await crm(platform, {
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/items
parameters:
  x-api-key: { location: header, type: secret, value: api-key }
continuation:
  when: =$exists(@ctx.response.body.next)
  url: =@ctx.response.body.next
  parameters:
    x-api-key: { location: header, type: secret, value: api-key }
`,
    });
    const call = (url: string) =>
      platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-items/call', {
        token: user,
        body: { values: {}, continuation: { url } },
      });

    // A next link on the service's own origin is followed, with the credential.
    const own = await call(`${service.url}/items?page=2`);
    expect(own.status).toBe(200);
    expect(own.body.body).toEqual({ path: '/items?page=2' });
    expect(service.requests.at(-1)!.headers['x-api-key']).toBe(SECRET);

    // Another origin (another port, a user name that moves the host, a placeholder) is refused.
    const port = new URL(elsewhere.url).port;
    for (const url of [
      `${elsewhere.url}/steal`,
      `${service.url}@127.0.0.1:${port}/steal`,
      `http://{host}/steal`,
    ]) {
      const refused = await call(url);
      expect(refused.status, url).toBe(403);
      expect(refused.body).toMatchObject({ status: 'error', code: 'TARGET_REFUSED' });
      expect(refused.body.message).toContain(
        'a continuation page goes only to the origin the function calls',
      );
      expect(typeof refused.body.correlationId).toBe('string');
    }
    expect(elsewhere.requests).toEqual([]);
    expect(platform.output()).not.toContain(SECRET);
  });
});

describe("a caller's value for a credential parameter", () => {
  it('is refused on execute and call: the credential is the one the function names', async () => {
    const service = await testServer((req, res) => json(res, 200, { ok: true, url: req.url }));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const { user } = await crm(platform, {
      'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/orders
parameters:
  x-api-key: { location: header, type: secret, value: api-key }
`,
    });
    const path = '/api/v1/solutions/crm/functions/rest-get-orders';
    for (const [route, body] of [
      ['execute', { parameters: { 'x-api-key': 'other-key' } }],
      ['execute', { parameters: { 'x-api-key': 'other-key' }, pages: true }],
      ['call', { values: { 'x-api-key': 'other-key' } }],
    ] as const) {
      const refused = await platform.api('POST', `${path}/${route}`, { token: user, body });
      expect(refused.status, route).toBe(400);
      expect(refused.body).toMatchObject({ status: 'error', code: 'REQUEST_INVALID' });
      expect(refused.body.message).toContain("parameter 'x-api-key' is a credential");
    }
    expect(service.requests).toEqual([]);

    // Without it, the function's own credential goes out.
    const ran = await platform.api('POST', `${path}/execute`, { token: user, body: {} });
    expect(ran.body).toMatchObject({ status: 'ok', output: { ok: true } });
    expect(service.requests.map((r) => r.headers['x-api-key'])).toEqual([SECRET]);
  });
});

describe('a publish whose solution.yaml names another solution', () => {
  it('is refused and changes nothing', async () => {
    const platform = await startPlatformProcess();
    const admin = platform.adminToken;
    const fn = 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://example.com/x\n';
    const first = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: { files: { 'solution.yaml': 'name: crm\n', 'functions/rest-get-x.platform': fn } },
    });
    expect(first.status).toBe(201);
    const other = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: { files: { 'solution.yaml': 'name: billing\n' } },
    });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ status: 'error', code: 'REQUEST_INVALID' });
    expect(other.body.message).toContain("solution.yaml names the solution 'billing', not 'crm'");
    const current = await platform.api('GET', '/api/v1/solutions/crm', { token: admin });
    expect(current.body).toMatchObject({ version: 1, functions: ['rest-get-x'] });
  });
});

describe('an execution refused before its call', () => {
  it('still answers a correlation id, the one its audit entry has', async () => {
    const platform = await startPlatformProcess();
    const admin = platform.adminToken;
    await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-order.platform': `provider: DATA_PROVIDER_REST
method: GET
url: https://example.com/orders/{id}
parameters:
  id: { location: path, type: string, required: true }
  x-api-key: { location: header, type: secret, value: never-stored }
`,
        },
      },
    });
    const path = '/api/v1/solutions/crm/functions/rest-get-order';
    for (const [route, body, code] of [
      ['execute', {}, 'PARAMETER_REQUIRED'],
      ['execute', { parameters: { id: 'o-1' } }, 'CREDENTIAL_NOT_FOUND'],
      ['call', { values: { id: 'o-1' }, correlationId: 'device-7' }, 'CREDENTIAL_NOT_FOUND'],
    ] as const) {
      const answer = await platform.api('POST', `${path}/${route}`, { token: admin, body });
      expect(answer.body).toMatchObject({ status: 'error', code });
      const id = answer.body.correlationId as string;
      expect(typeof id, code).toBe('string');
      if (route === 'call') expect(id).toBe('device-7');
      const audit = await platform.api('GET', `/api/v1/solutions/crm/executions?correlationId=${id}`, {
        token: admin,
      });
      expect(audit.body.entries).toMatchObject([
        { target: 'rest-get-order', outcome: code, correlationId: id },
      ]);
    }
  });
});
