import { mkdirSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { actAsUser, authServer, PUBLIC_CLIENT_ID } from '../helpers/oauth-server.js';
import { startPlatformProcess } from '../helpers/platform.js';
import { customersApi, queueSolution } from '../helpers/queue.js';
import { tempSolution } from '../helpers/temp-solution.js';

const SECRET = 'dk-live-8Rt3vNq6Xw2Lm9Zp4Hc7';

/**
 * The device against the platform (`--server`): the device resolves parameters, pages and writes
 * its local tables and queue; the platform makes each call with its own credentials, which the
 * device never has.
 */
describe('restfn run/sync/action --server', () => {
  it('runs, syncs page by page and pushes actions through the platform; the device holds no credential', async () => {
    const items = await testServer((req, res) => {
      if (req.headers['x-api-key'] !== SECRET) return json(res, 401, { error: 'key?' });
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? '1');
      json(res, 200, {
        items: [{ id: `i-${page}`, name: `Item ${page}`, key: req.headers['x-api-key'] }],
        next: page < 3 ? page + 1 : null,
      });
    });
    const api = await customersApi([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    const files = {
      'solution.yaml': 'name: crm\n',
      ...queueSolution(api.url),
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${items.url}/items
parameters:
  page: { location: query, type: int, value: 1 }
  x-api-key: { location: header, type: secret, value: api-key }
records: =items
continuation:
  when: =@ctx.output.next != null
  parameters:
    page: { location: query, type: int, value: =@ctx.output.next }
    x-api-key: { location: header, type: secret, value: api-key }
`,
      'datasources/items.platform':
        'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: items\n      function: rest-get-items\n  query: SELECT id, data FROM [items]\n',
    };
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'bob', role: 'author', solutions: ['crm'] },
    });
    const token = (await platform.api('POST', '/api/v1/users/bob/tokens', { token: admin, body: {} })).body
      .token;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token,
      body: { files: Object.fromEntries(Object.entries(files).filter(([p]) => p !== 'solution.yaml')) },
    });
    expect(published.status).toBe(201);
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token,
      body: { kind: 'secret', value: SECRET },
    });
    const device = tempSolution(files);
    const env = {
      RESTFN_SERVER: platform.url,
      RESTFN_TOKEN: token,
      XDG_CONFIG_HOME: join(device, 'no-config'),
    };
    const restfn = (...args: string[]) => runCli([...args, '--solution', device], { env });

    const ran = await restfn('run', 'rest-get-items', '--server');
    // Only the note that a paged function gave its first page (as a local run says it).
    expect(ran.stderr).toBe(
      "restfn: rest-get-items gave page 1 only; the service has more pages (continuation.when =@ctx.output.next != null held): 'restfn sync' fills a datasource using rest-get-items with all of them\n",
    );
    expect(ran.code).toBe(0);
    // What the service echoed of the key comes back masked.
    expect(JSON.parse(ran.stdout)).toEqual({ items: [{ id: 'i-1', name: 'Item 1', key: '***' }], next: 2 });

    // Or from solution.yaml, with the token kept (encrypted) in the device's credential store.
    writeFileSync(
      join(device, 'solution.yaml'),
      `name: crm\nsettings:\n  platform:\n    url: ${platform.url}\n`,
    );
    const bare = { XDG_CONFIG_HOME: join(device, 'no-config') };
    const stored = await runCli(
      ['credentials', 'set', 'platform-token', '--kind', 'secret', '--solution', device],
      {
        env: bare,
        input: `${token}\n`,
      },
    );
    expect(stored.code).toBe(0);
    const viaSettings = await runCli(['run', 'rest-get-items', '--solution', device], { env: bare });
    expect(viaSettings.code).toBe(0);
    expect(JSON.parse(viaSettings.stdout).items[0].key).toBe('***');

    const synced = await restfn('sync', 'items', '--server');
    expect(synced.code).toBe(0);
    const db = new Database(join(device, '.restfn', 'local.db'), { readonly: true });
    const rows = db.prepare('SELECT data FROM [items] ORDER BY id').all() as Array<{ data: string }>;
    db.close();
    expect(rows.map((r) => JSON.parse(r.data).id)).toEqual(['i-1', 'i-2', 'i-3']);

    // An action's command goes through the platform, with its idempotency key.
    expect((await restfn('sync', 'customers', '--server')).code).toBe(0);
    const acted = await restfn(
      'action',
      'update-customer',
      '--server',
      '-p',
      'current.item.id=c-1',
      '-p',
      'components.name.state.value=Grace',
    );
    expect(acted.code).toBe(0);
    const result = JSON.parse(acted.stdout);
    expect(result.command.state).toBe('done');
    expect(api.requests.at(-1)).toMatchObject({
      method: 'PATCH',
      url: '/customers/c-1',
      idempotencyKey: result.command.id,
    });
    expect(api.customers.get('c-1')?.name).toBe('Grace');

    // A token the platform refuses is the device's problem, not the command's: it waits, unsent.
    await restfn(
      'action',
      'update-customer',
      '--no-push',
      '-p',
      'current.item.id=c-1',
      '-p',
      'components.name.state.value=Ida',
    );
    const refusedPush = await restfn(
      'queue',
      'push',
      '--server',
      '--token',
      'rfn_not-a-token',
      '--format',
      'json',
    );
    expect(refusedPush.stderr).toContain('AUTH_REQUIRED');
    expect(refusedPush.stderr).toContain('stopped: a credential is missing or needs a login');
    expect(JSON.parse(refusedPush.stdout)).toMatchObject({ sent: 0, failed: 0, waiting: 1, remaining: 1 });
    const goodPush = await restfn('queue', 'push', '--server', '--format', 'json');
    expect(JSON.parse(goodPush.stdout)).toMatchObject({ sent: 1, remaining: 0 });
    expect(api.customers.get('c-1')?.name).toBe('Ida');

    // A refusal of the service comes back as the same coded error, exit 1.
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token,
      body: { kind: 'secret', value: 'wrong-key-value' },
    });
    const refused = await restfn('run', 'rest-get-items', '--server');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('restfn: error REMOTE_ERROR');
    expect(refused.stderr).toContain('401');

    const everything = [ran, synced, acted, refused].map((r) => r.stdout + r.stderr).join('\n');
    for (const form of encodings(SECRET)) expect(everything).not.toContain(form);
  });

  it('useLocalCall: the device logs in with the OAuth configuration the platform gives (no secret) and calls itself', async () => {
    // A free port for the device's loopback redirect (the login listens there).
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    const auth = await authServer(redirectUri);
    const orders = await testServer(async (req, res) => {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      json(res, (await auth.isValid(bearer)) ? 200 : 401, { orders: 3 });
    });
    const files = {
      'solution.yaml': 'name: shop\n',
      'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${orders.url}/orders
useLocalCall: true
parameters:
  authorization: { location: header, type: oauth, value: erp }
`,
    };
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'eve', role: 'author', solutions: ['shop'] },
    });
    const token = (await platform.api('POST', '/api/v1/users/eve/tokens', { token: admin, body: {} })).body
      .token;
    await platform.api('PUT', '/api/v1/solutions/shop', {
      token,
      body: { files: { 'functions/rest-get-orders.platform': files['functions/rest-get-orders.platform'] } },
    });
    await platform.api('PUT', '/api/v1/solutions/shop/credentials/erp', {
      token,
      body: {
        kind: 'oauth',
        tokenEndpoint: auth.tokenEndpoint,
        authorizationEndpoint: auth.authorizationEndpoint,
        issuer: auth.issuer,
        clientId: PUBLIC_CLIENT_ID,
        grantType: 'authorization_code',
        scopes: ['api'],
        redirectUri,
      },
    });
    const device = tempSolution(files);
    const env = { RESTFN_SERVER: platform.url, RESTFN_TOKEN: token, XDG_CONFIG_HOME: join(device, 'config') };
    const { child, done } = startCli(['login', 'erp', '--server', '--solution', device], { env });
    let stderr = '';
    const url = await new Promise<string>((resolve) => {
      child.stderr!.on('data', (c) => {
        stderr += c;
        const found = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(stderr)?.[1];
        if (found) resolve(found);
      });
    });
    await actAsUser(url);
    const loggedIn = await done;
    expect(loggedIn.code).toBe(0);
    expect(loggedIn.stderr).toContain("restfn: logged in: 'erp'\n");

    // The call is the device's own, with the device's token; the platform made none.
    const ran = await runCli(['run', 'rest-get-orders', '--server', '--solution', device], { env });
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ orders: 3 });
    const audit = await platform.api('GET', '/api/v1/solutions/shop/executions', { token: admin });
    expect(audit.body.entries.filter((e: { action: string }) => e.action === 'call')).toEqual([]);
  });

  it("a device's file goes to the platform as bytes and on as a multipart file part; the platform refuses a file:// value", async () => {
    const received: Array<[string, string | { name: string; type: string; size: number }]> = [];
    const uploads = await testServer(async (req, res) => {
      const form = await new Response(req.bytes, {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      for (const [name, value] of form.entries())
        received.push([
          name,
          typeof value === 'string' ? value : { name: value.name, type: value.type, size: value.size },
        ]);
      json(res, 200, { ok: true });
    });
    const upload = `provider: DATA_PROVIDER_REST
method: POST
url: ${uploads.url}/upload
parameters:
  Content-Type: { location: header, type: string, value: multipart/form-data }
  caption: { location: body, type: string }
  photo: { location: body, type: image }
`;
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: { files: { 'functions/rest-upload.platform': upload } },
    });
    expect(published.status, published.text).toBe(201);
    const device = tempSolution({ 'solution.yaml': 'name: crm\n', 'functions/rest-upload.platform': upload });
    const photo = Buffer.from('\x89PNG\r\n\x1a\n-not-really-a-png', 'latin1');
    mkdirSync(join(device, '.restfn', 'files'), { recursive: true });
    writeFileSync(join(device, '.restfn', 'files', 'me.png'), photo);
    const uri = pathToFileURL(join(device, '.restfn', 'files', 'me.png')).href;
    const env = {
      RESTFN_SERVER: platform.url,
      RESTFN_TOKEN: admin,
      XDG_CONFIG_HOME: join(device, 'no-config'),
    };
    const ran = await runCli(
      ['run', 'rest-upload', '-p', 'caption=Me', '-p', `photo=${uri}`, '--server', '--solution', device],
      { env },
    );
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(received).toEqual([
      ['caption', 'Me'],
      ['photo', { name: 'me.png', type: 'image/png', size: photo.length }],
    ]);
    // The platform reads no device's files: a file:// value sent to it directly is refused.
    const direct = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-upload/execute', {
      token: admin,
      body: { parameters: { caption: 'x', photo: uri } },
    });
    expect(direct.body).toMatchObject({ code: 'FILE_VALUE' });
    expect(received).toHaveLength(2);
  });
});
