import { describe, expect, it } from 'vitest';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { authServer, CLIENT_ID, CLIENT_SECRET } from '../helpers/oauth-server.js';
import { bytesOf, type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';

/**
 * The real `restfn serve` as a subprocess, over real HTTP: roles and isolation, publish,
 * credentials that never come back, execution on the app's behalf, the audit log.
 */

const SECRET = 'sk-live-7Hq2vXz9LmR4tWp8Kc3N';
const PASSWORD = 'Pw-9sT4xQm2LvR8kZ';

/** A resource server that answers only with the right credential. */
async function checkingService() {
  return testServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    const key = req.headers['x-api-key'];
    const basic = `Basic ${Buffer.from(`ada:${PASSWORD}`).toString('base64')}`;
    if (req.url.startsWith('/secret') && key === SECRET) return json(res, 200, { ok: 'secret', echo: key });
    if (req.url.startsWith('/basic') && auth === basic) return json(res, 200, { ok: 'basic' });
    if (req.url.startsWith('/items')) {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? '1');
      return json(res, 200, { items: [{ id: page }], next: page < 3 ? page + 1 : null });
    }
    json(res, 401, { error: 'no', echo: key ?? auth });
  });
}

function solutionFiles(url: string): Record<string, string> {
  return {
    'functions/rest-get-secret.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/secret
parameters:
  x-api-key:
    location: header
    type: secret
    value: api-key
`,
    'functions/rest-get-basic.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/basic
parameters:
  auth:
    location: header
    type: secret
    value: login
`,
    'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/items
parameters:
  page: { location: query, type: int, value: 1 }
continuation:
  when: =@ctx.output.next != null
  parameters:
    page: { location: query, type: int, value: =@ctx.output.next }
`,
  };
}

/** A server with two solutions, an author of `crm` and a user of `crm`, and a user of `hr`. */
async function setup(args: string[] = ['--allow-private-targets']) {
  const platform = await startPlatformProcess({ args });
  const admin = platform.adminToken;
  const token = async (name: string, role: string, solutions: string[]) => {
    const made = await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name, role, solutions },
    });
    expect(made.status).toBe(201);
    const t = await platform.api('POST', `/api/v1/users/${name}/tokens`, { token: admin, body: {} });
    expect(t.status).toBe(201);
    return t.body.token as string;
  };
  return {
    platform,
    admin,
    author: await token('alice', 'author', ['crm']),
    user: await token('bob', 'user', ['crm']),
    other: await token('carol', 'author', ['hr']),
  };
}

async function publish(
  platform: PlatformProcess,
  token: string,
  solution: string,
  files: Record<string, string>,
) {
  return platform.api('PUT', `/api/v1/solutions/${solution}`, { token, body: { files } });
}

describe('restfn serve', () => {
  it('serves the console files from memory: cached by content, only the built files, no path outside', async () => {
    const platform = await startPlatformProcess();
    const index = await fetch(`${platform.url}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const script = /src="\/console\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${platform.url}/console/${script}`);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = asset.headers.get('etag')!;
    const again = await fetch(`${platform.url}/console/${script}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    for (const path of [
      '/console/../package.json',
      '/console/..%2f..%2fpackage.json',
      '/console/assets/',
      '/console/nope.js',
    ])
      expect((await platform.api('GET', path)).body, path).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
  });

  it("logs JSON lines, one per answered request (method, url, status, ms), and nothing else on stderr but restfn's own lines", async () => {
    const platform = await startPlatformProcess();
    expect((await platform.api('GET', '/api/v1/me', { token: platform.adminToken })).status).toBe(200);
    expect((await platform.api('GET', '/api/v1/nowhere')).status).toBe(404);
    await platform.stop();
    const lines = platform.output().split('\n').filter(Boolean);
    // No runtime warning (a deprecated fastify option printed one at every start).
    expect(lines.filter((line) => !line.startsWith('restfn') && !line.startsWith('{'))).toEqual([]);
    const requests = lines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'request completed');
    expect(requests.map((r) => [r.method, r.url, r.statusCode])).toEqual([
      ['GET', '/api/v1/me', 200],
      ['GET', '/api/v1/nowhere', 404],
    ]);
    expect(requests.every((r) => typeof r.ms === 'number')).toBe(true);
  });

  it('--log-format text (the default on a terminal) logs a readable line per request, credentials still redacted', async () => {
    const platform = await startPlatformProcess({ args: ['--log-format', 'text'] });
    expect((await platform.api('GET', '/api/v1/me', { token: platform.adminToken })).status).toBe(200);
    expect((await platform.api('GET', '/api/v1/nowhere')).status).toBe(404);
    await platform.stop();
    const out = platform.output();
    expect(out).toMatch(/^\d\d:\d\d:\d\d info {2}GET \/api\/v1\/me 200 \d+\.\d ms$/m);
    expect(out).toMatch(/^\d\d:\d\d:\d\d info {2}GET \/api\/v1\/nowhere 404 \d+\.\d ms$/m);
    expect(out.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
    // The first admin's token is shown once on stdout (the ready lines), never in a log line.
    const logged = out.split('\n').filter((line) => /^\d\d:\d\d:\d\d /.test(line));
    expect(logged.length).toBeGreaterThanOrEqual(3);
    expect(logged.join('\n')).not.toContain(platform.adminToken.slice(4));
  });

  it('the solutions list reads a title of any length in one pass (no backtracking on a line of spaces)', async () => {
    const platform = await startPlatformProcess();
    const title = `a${' '.repeat(200_000)}b`;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: platform.adminToken,
      body: {
        files: {
          'solution.yaml': `name: crm\ntitle: ${title}\n`,
          'functions/rest-get-x.platform':
            'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://api.example.com/x\n',
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    // With a backtracking pattern this took minutes, holding the request thread (and /healthz).
    const list = await platform.api('GET', '/api/v1/solutions', { token: platform.adminToken });
    expect(list.body.solutions).toEqual([
      expect.objectContaining({
        name: 'crm',
        title: title.slice(0, 200),
        functions: 1,
        publishedBy: 'admin',
      }),
    ]);
  }, 30_000);

  it('answers health without a token; every API endpoint needs a live token and the right role and solution', async () => {
    const { platform, admin, author, user, other } = await setup();
    expect(await platform.api('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const endpoints: Array<[string, string, unknown?]> = [
      ['GET', '/api/v1/me'],
      ['GET', '/api/v1/users'],
      ['POST', '/api/v1/users', { name: 'x', role: 'user' }],
      ['GET', '/api/v1/solutions'],
      ['GET', '/api/v1/solutions/crm'],
      ['PUT', '/api/v1/solutions/crm', { files: { 'functions/a.platform': 'x' } }],
      ['GET', '/api/v1/solutions/crm/credentials'],
      ['PUT', '/api/v1/solutions/crm/credentials/api-key', { kind: 'secret', value: 'v' }],
      ['DELETE', '/api/v1/solutions/crm/credentials/api-key'],
      ['POST', '/api/v1/solutions/crm/functions/rest-get-secret/execute', {}],
      ['GET', '/api/v1/solutions/crm/executions'],
      ['GET', '/api/v1/users/alice/tokens'],
    ];
    for (const [method, path, body] of endpoints) {
      for (const token of [undefined, 'rfn_wrong']) {
        const answer = await platform.api(method, path, { ...(token ? { token } : {}), body });
        expect(answer.status, `${method} ${path} with ${token ?? 'no token'}`).toBe(401);
        expect(answer.body).toMatchObject({ status: 'error', code: 'AUTH_REQUIRED' });
      }
    }
    // Another solution's author, and a plain user, are refused where they do not belong.
    const refused: Array<[string, string, string, unknown?]> = [
      [other, 'GET', '/api/v1/solutions/crm'],
      [other, 'PUT', '/api/v1/solutions/crm', { files: { 'functions/a.platform': 'x' } }],
      [other, 'GET', '/api/v1/solutions/crm/credentials'],
      [other, 'PUT', '/api/v1/solutions/crm/credentials/api-key', { kind: 'secret', value: 'v' }],
      [other, 'POST', '/api/v1/solutions/crm/functions/rest-get-secret/execute', {}],
      [user, 'PUT', '/api/v1/solutions/crm', { files: { 'functions/a.platform': 'x' } }],
      [user, 'GET', '/api/v1/solutions/crm/credentials'],
      [user, 'GET', '/api/v1/users'],
      // A solution's executions: its authors and admins; not its users, nor another solution's author.
      [user, 'GET', '/api/v1/solutions/crm/executions'],
      [other, 'GET', '/api/v1/solutions/crm/executions'],
      [author, 'POST', '/api/v1/users', { name: 'x', role: 'admin' }],
      [user, 'GET', '/api/v1/users/alice/tokens'],
    ];
    for (const [token, method, path, body] of refused) {
      const answer = await platform.api(method, path, { token, body });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.code).toBe('FORBIDDEN');
    }
    expect((await platform.api('GET', '/api/v1/solutions/crm/executions', { token: author })).status).toBe(
      200,
    );
    expect((await platform.api('GET', '/api/v1/audit', { token: author })).status).toBe(403);
    expect((await platform.api('GET', '/api/v1/me', { token: user })).body).toMatchObject({
      name: 'bob',
      role: 'user',
      solutions: ['crm'],
    });
    // A revoked token stops working at once.
    const made = await platform.api('POST', '/api/v1/users/bob/tokens', {
      token: user,
      body: { name: 'laptop' },
    });
    expect((await platform.api('GET', '/api/v1/me', { token: made.body.token })).status).toBe(200);
    expect(
      (await platform.api('DELETE', `/api/v1/users/bob/tokens/${made.body.id}`, { token: user })).status,
    ).toBe(200);
    expect((await platform.api('GET', '/api/v1/me', { token: made.body.token })).status).toBe(401);
    expect((await platform.api('GET', '/api/v1/nothing', { token: admin })).body.code).toBe(
      'ROUTE_NOT_FOUND',
    );
  });

  it('publish: the server validates again; an invalid upload changes nothing and says where; versions are immutable', async () => {
    const { platform, author, user } = await setup();
    const invalid = await publish(platform, author, 'crm', {
      'functions/rest-get-x.platform':
        'provider: DATA_PROVIDER_REST\nmethod: FETCH\nurl: http://example.com\n',
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ status: 'error', code: 'PUBLISH_INVALID' });
    expect(invalid.body.findings).toContainEqual(
      expect.objectContaining({ file: 'functions/rest-get-x.platform', line: 2, severity: 'error' }),
    );
    expect((await platform.api('GET', '/api/v1/solutions/crm', { token: user })).body.code).toBe(
      'SOLUTION_NOT_PUBLISHED',
    );
    const bad = await publish(platform, author, 'crm', { '../escape.platform': 'x' });
    expect(bad).toMatchObject({ status: 400, body: { code: 'REQUEST_INVALID' } });

    const files = solutionFiles('http://127.0.0.1:9');
    const first = await publish(platform, author, 'crm', files);
    expect(first).toMatchObject({ status: 201, body: { version: 1, unchanged: false } });
    expect((await publish(platform, author, 'crm', files)).body).toMatchObject({
      version: 1,
      unchanged: true,
    });
    const second = await publish(platform, author, 'crm', {
      ...files,
      'functions/rest-get-more.platform':
        'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://127.0.0.1:9/more\n',
    });
    expect(second.body.version).toBe(2);
    const shown = await platform.api('GET', '/api/v1/solutions/crm', { token: user });
    expect(shown.body).toMatchObject({ name: 'crm', version: 2, publishedBy: 'alice' });
    expect(shown.body.functions).toEqual([
      'rest-get-basic',
      'rest-get-items',
      'rest-get-more',
      'rest-get-secret',
    ]);
  });

  it('credentials are write-only: execution uses them, no answer, log line or stored byte holds them', async () => {
    const { platform, admin, author, user } = await setup();
    const service = await checkingService();
    expect((await publish(platform, author, 'crm', solutionFiles(service.url))).status).toBe(201);
    const put = await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token: author,
      body: { kind: 'secret', value: SECRET },
    });
    expect(put.status).toBe(201);
    expect(put.body).toMatchObject({ key: 'api-key', kind: 'secret', fields: {} });
    const basic = await platform.api('PUT', '/api/v1/solutions/crm/credentials/login', {
      token: author,
      body: { kind: 'basic', username: 'ada', password: PASSWORD },
    });
    expect(basic.body).toMatchObject({ kind: 'basic', fields: { username: 'ada' } });
    const listed = await platform.api('GET', '/api/v1/solutions/crm/credentials', { token: author });
    expect(listed.body.credentials.map((c: { key: string }) => c.key)).toEqual(['api-key', 'login']);

    const ran = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-secret/execute', {
      token: user,
      body: { parameters: {} },
    });
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ status: 'ok', output: { ok: 'secret' }, version: 1 });
    expect(ran.body.correlationId).toMatch(/[0-9a-f-]{36}/);
    // The service echoed the key: the answer masks it.
    expect(ran.body.output.echo).toBe('***');
    const viaBasic = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-basic/execute', {
      token: user,
      body: {},
    });
    expect(viaBasic.body).toMatchObject({ status: 'ok', output: { ok: 'basic' } });

    // A wrong key: the remote's 401 is the platform's 502 with the remote status; nothing echoed.
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token: author,
      body: { kind: 'secret', value: `${SECRET}-old` },
    });
    const refused = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-secret/execute', {
      token: user,
      body: {},
    });
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ status: 'error', code: 'REMOTE_ERROR', remoteStatus: 401 });
    expect(refused.body.correlationId).toBeTruthy();
    expect(refused.body.alert).toMatchObject({ title: expect.any(String) });

    const audit = await platform.api('GET', '/api/v1/solutions/crm/executions', { token: admin });
    expect(
      audit.body.entries.map((e: { action: string; outcome: string }) => `${e.action}:${e.outcome}`),
    ).toEqual([
      'execute:REMOTE_ERROR',
      'credential.put:ok',
      'execute:ok',
      'execute:ok',
      'credential.put:ok',
      'credential.put:ok',
      'publish:ok',
    ]);
    expect(audit.body.entries[0]).toMatchObject({ actor: 'bob', target: 'rest-get-secret', solution: 'crm' });

    // A preview's raw exchanges (authors and admins): each attempt as sent and as answered, before
    // any transform, with the credential masked wherever it stood.
    const execute = '/api/v1/solutions/crm/functions/rest-get-secret/execute';
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token: author,
      body: { kind: 'secret', value: SECRET },
    });
    const traced = await platform.api('POST', execute, { token: author, body: { trace: true } });
    expect(traced.status).toBe(200);
    expect(traced.body.trace).toHaveLength(1);
    expect(traced.body.trace[0].request).toMatchObject({
      method: 'GET',
      url: `${service.url}/secret`,
      headers: { 'x-api-key': '***' },
    });
    expect(traced.body.trace[0].response.status).toBe(200);
    expect(JSON.parse(traced.body.trace[0].response.body)).toEqual({ ok: 'secret', echo: '***' });
    expect(traced.body.output).toEqual({ ok: 'secret', echo: '***' });
    const userTrace = await platform.api('POST', execute, { token: user, body: { trace: true } });
    expect(userTrace.status).toBe(403);
    expect(userTrace.body.code).toBe('FORBIDDEN');
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token: author,
      body: { kind: 'secret', value: `${SECRET}-old` },
    });
    const tracedError = await platform.api('POST', execute, { token: author, body: { trace: true } });
    expect(tracedError.status).toBe(502);
    expect(tracedError.body).toMatchObject({ code: 'REMOTE_ERROR', remoteStatus: 401 });
    // A secret has no token to refresh: the 401 is not retried.
    expect(tracedError.body.trace.map((x: { response: { status: number } }) => x.response.status)).toEqual([
      401,
    ]);
    expect(JSON.parse(tracedError.body.trace[0].response.body)).toEqual({ error: 'no', echo: '***' });

    const answers = JSON.stringify([
      put.body,
      basic.body,
      listed.body,
      ran.body,
      viaBasic.body,
      refused.body,
      audit.body,
      traced.body,
      tracedError.body,
    ]);
    await platform.stop();
    const stored = bytesOf(platform.dataDir);
    for (const secret of [SECRET, PASSWORD, `${SECRET}-old`]) {
      for (const form of encodings(secret)) {
        expect(answers).not.toContain(form);
        expect(platform.output()).not.toContain(form);
        expect(stored).not.toContain(form);
      }
    }
  });

  it('OAuth client credentials against oidc-provider, through the platform; the client secret is never shown', async () => {
    const { platform, author, user } = await setup();
    const auth = await authServer('http://127.0.0.1/unused');
    const service = await testServer(async (req, res) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      json(res, (await auth.isValid(token)) ? 200 : 401, { ok: Boolean(token) });
    });
    await publish(platform, author, 'crm', {
      'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/orders
parameters:
  authorization:
    location: header
    type: oauth
    value: erp
`,
    });
    const put = await platform.api('PUT', '/api/v1/solutions/crm/credentials/erp', {
      token: author,
      body: {
        kind: 'oauth',
        tokenEndpoint: auth.tokenEndpoint,
        issuer: auth.issuer,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        grantType: 'client_credentials',
      },
    });
    expect(put.body.fields).toMatchObject({ clientId: CLIENT_ID, hasClientSecret: true });
    for (let i = 0; i < 2; i++) {
      const ran = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-orders/execute', {
        token: user,
        body: {},
      });
      expect(ran.body).toMatchObject({ status: 'ok', output: { ok: true } });
    }
    // One grant: the token is kept (encrypted) and reused.
    expect(auth.grants).toEqual(['client_credentials']);
    const listed = await platform.api('GET', '/api/v1/solutions/crm/credentials', { token: author });
    expect(listed.body.credentials[0]).toMatchObject({ key: 'erp', hasToken: true });
    await platform.stop();
    for (const form of encodings(CLIENT_SECRET)) {
      expect(JSON.stringify([put.body, listed.body])).not.toContain(form);
      expect(platform.output()).not.toContain(form);
      expect(bytesOf(platform.dataDir)).not.toContain(form);
    }
  });

  it('"pages": true streams every page as NDJSON, then a summary line', async () => {
    const { platform, author, user } = await setup();
    const service = await checkingService();
    await publish(platform, author, 'crm', solutionFiles(service.url));
    const res = await fetch(`${platform.url}/api/v1/solutions/crm/functions/rest-get-items/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pages: true }),
    });
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    // Written past fastify's reply, with the security headers every answer has.
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { page: 1, output: { items: [{ id: 1 }], next: 2 } },
      { page: 2, output: { items: [{ id: 2 }], next: 3 } },
      { page: 3, output: { items: [{ id: 3 }], next: null } },
      { status: 'ok', pages: 3, stopped: 'done', correlationId: expect.any(String) },
    ]);
  });
});
