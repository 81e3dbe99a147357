import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FileStore } from '../../src/local/files.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { datasource, seed, syncSetup } from '../helpers/sync.js';
import { FIXTURES, tempSolution } from '../helpers/temp-solution.js';

/** Function files as the platform accepts them (issue 9): what they send and what they return. */
const fn = (yaml: string) => ({ 'functions/fn.platform': yaml });

describe('urls', () => {
  test('a path parameter the url does not use is not required and not sent, but transforms see it', async () => {
    const server = await testServer((_, res) => json(res, 200, { name: 'Ada' }));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/me
parameters:
  userId: { location: path, type: string }
outputTransform: '{ "name": name, "userId": $.inputs.userId.value, "fromCtx": @ctx.parameters.userId }'
`),
    );
    expect(await runtime.execute('fn', { userId: 'u-7' })).toMatchObject({
      output: { name: 'Ada', userId: 'u-7', fromCtx: 'u-7' },
    });
    expect((await runtime.execute('fn')).status).toBe('ok');
    expect(server.requests.map((r) => r.url)).toEqual(['/me', '/me']);
  });

  test('placeholders in the written query are dropped with it; the query parameters replace them', async () => {
    const server = await testServer((_, res) => json(res, 200, []));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/search?q={term}&page={page}
parameters:
  term: { location: query, type: string }
`),
    );
    await runtime.execute('fn', { term: 'a&b' });
    expect(server.requests[0]!.url).toBe('/search?term=a%26b');
  });

  test('a host placeholder takes host, port and path prefix as written; path values stay encoded', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: http://{host}/items/{id}
parameters:
  host: { location: path, type: string, required: true }
  id: { location: path, type: string, required: true }
`),
    );
    const host = `${new URL(server.url).host}/api/v2`;
    await runtime.execute('fn', { host, id: 'a/b c' });
    // Dot segments (also encoded: URL parsers decode them) would move the request elsewhere.
    for (const id of ['..', '.', '%2e%2E'])
      await expect(runtime.execute('fn', { host, id })).rejects.toMatchObject({ code: 'INVALID_URL_VALUE' });
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v2/items/a%2Fb%20c']);
  });

  test.each([
    ['a user name', 'me@127.0.0.1:9', /cannot fill \{host\}.*@/],
    ['another scheme', 'http://127.0.0.1:9', /names a scheme/],
    ['a query', '127.0.0.1:9/?admin=1', /cannot fill \{host\}/],
    ['whitespace', '127.0.0.1 :9', /cannot fill \{host\}/],
  ])('a host value carrying %s is refused before anything is sent', async (_, host, message) => {
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: https://{host}/items
parameters:
  host: { location: path, type: string, required: true }
`),
    );
    await expect(runtime.execute('fn', { host })).rejects.toMatchObject({
      code: 'INVALID_URL_VALUE',
      message: expect.stringMatching(message),
    });
  });

  test('a placeholder that is part of a host name takes host-name characters only', async () => {
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: https://{tenant}.example.com/bot/send
parameters:
  tenant: { location: path, type: string, required: true }
`),
    );
    for (const tenant of ['attacker.net/', 'attacker.net:443/', 'a_b'])
      await expect(runtime.execute('fn', { tenant })).rejects.toMatchObject({
        code: 'INVALID_URL_VALUE',
        message: expect.stringContaining('part of the host name'),
      });
  });

  test('a url whose base is all placeholder must still end up http(s)', async () => {
    const server = await testServer((_, res) => json(res, 200, { ok: true }));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: '{base}/ping'
parameters:
  base: { location: path, type: string, required: true }
`),
    );
    await expect(runtime.execute('fn', { base: server.url })).resolves.toMatchObject({
      output: { ok: true },
    });
    await expect(runtime.execute('fn', { base: 'file:///etc' })).rejects.toMatchObject({
      code: 'INVALID_URL',
      message: expect.stringContaining("scheme 'file'"),
    });
  });
});

describe('bodies and formats', () => {
  test('inputTransform builds the JSON body whatever the response format is', async () => {
    const server = await testServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('queued');
    });
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/jobs
format: text
parameters:
  name: { location: body, type: string }
inputTransform: '{ "job": name }'
`),
    );
    expect(await runtime.execute('fn', { name: 'nightly' })).toMatchObject({ output: 'queued' });
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ job: 'nightly' });
  });
});

describe('what transforms see', () => {
  test('inputTransform: each parameter as $.inputs.<name>.value, and by name as before', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/users
parameters:
  userId: { location: body, type: string }
  age: { location: body, type: int }
inputTransform: '{ "id": $.inputs.userId.value, "plain": userId, "keys": $keys($), "all": $ }'
`),
    );
    await runtime.execute('fn', { userId: 'u1', age: '7' });
    expect(JSON.parse(server.requests[0]!.body)).toEqual({
      id: 'u1',
      plain: 'u1',
      keys: ['userId', 'age'],
      // `$` itself is still exactly the parameter map: `inputs` is seen by paths, not sent.
      all: { userId: 'u1', age: 7 },
    });
  });

  test('outputTransform reads the status and headers as $$.status / $$.headers, even without a body', async () => {
    const server = await testServer((req, res) => {
      if (req.url === '/empty') {
        res.writeHead(201, { location: '/items/it-42' });
        res.end();
      } else json(res, 201, { name: 'n' }, { location: '/items/it-43', 'set-cookie': 'sid=secret' });
    });
    const runtime = runtimeFor({
      'functions/create-empty.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/empty
outputTransform: '{ "id": $split($$.headers.location, "/")[-1], "status": $$.status }'
`,
      'functions/create-body.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/body
outputTransform: '{ "name": name, "loc": $$.headers.location, "cookie": $$.headers."set-cookie", "keys": $keys($), "body": $ }'
`,
      'functions/create-identity.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/empty
outputTransform: $
`,
    });
    expect(await runtime.execute('create-empty')).toMatchObject({ output: { id: 'it-42', status: 201 } });
    expect(await runtime.execute('create-body')).toMatchObject({
      output: { name: 'n', loc: '/items/it-43', cookie: '***', keys: 'name', body: { name: 'n' } },
    });
    // A transform that hands its input back gives the body itself (none here), not a stand-in.
    expect(await runtime.execute('create-identity')).toMatchObject({ output: null });
  });
});

describe('values keep their shape', () => {
  const jpeg = readFileSync(join(FIXTURES, 'images', 'sample-32x24.jpg'));

  test('a body parameter converted to buffer is uploaded as the raw bytes with their content type', async () => {
    const server = await testServer((_, res) => json(res, 200, { stored: true }));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: PUT
url: ${server.url}/photos/{id}
parameters:
  id: { location: path, type: string, required: true }
  photo: { location: body, type: image, required: true }
conversions:
  - property: photo
    from: base64
    to: buffer
`),
    );
    await runtime.execute('fn', { id: 'p1', photo: jpeg.toString('base64') });
    const [req] = server.requests;
    expect(req!.method).toBe('PUT');
    expect(req!.headers['content-type']).toBe('image/jpeg');
    expect(req!.headers['content-length']).toBe(String(jpeg.length));
    expect(req!.bytes.equals(jpeg)).toBe(true);
  });

  test('a local-uri file converted to buffer goes raw too; a content-type parameter wins', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const root = tempSolution();
    const files = new FileStore(join(root, '.restfn', 'files'));
    const uri = files.save(jpeg, 'jpg');
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: PATCH
url: ${server.url}/avatar
parameters:
  file: { location: body, type: image }
  Content-Type: { location: header, type: string, value: application/octet-stream }
conversions:
  - property: file
    from: local-uri
    to: buffer
`),
      { files },
    );
    await runtime.execute('fn', { file: uri });
    expect(server.requests[0]!.headers['content-type']).toBe('application/octet-stream');
    expect(server.requests[0]!.bytes.equals(jpeg)).toBe(true);
  });

  test('bytes inside a JSON body are base64 text; structured values stay structured under type: string', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/docs
parameters:
  file: { location: body, type: image }
  meta: { location: body, type: string }
  tags: { location: body, type: string }
  count: { location: body, type: string }
  X-Meta: { location: header, type: string }
conversions:
  - property: file
    from: base64
    to: buffer
`),
    );
    const meta = { author: 'ada', pages: 3 };
    await runtime.execute('fn', {
      file: jpeg.toString('base64'),
      meta,
      tags: ['a', 'b'],
      count: 42,
      'X-Meta': meta,
    });
    const [req] = server.requests;
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({
      file: jpeg.toString('base64'),
      meta,
      tags: ['a', 'b'],
      count: '42',
    });
    expect(req!.headers['x-meta']).toBe(JSON.stringify(meta));
  });
});

describe('@ctx.user outside the platform', () => {
  test('from solution.yaml settings.user, overridden per field by the runtime option', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const files = {
      'solution.yaml': 'name: s\nsettings:\n  user:\n    id: u-1\n    email: dev@example.test\n',
      ...fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/me
parameters:
  X-User: { location: header, type: string, value: "=@ctx.user.id & ' ' & @ctx.user.email" }
`),
    };
    await runtimeFor(files).execute('fn');
    await runtimeFor(files, { user: { email: 'ops@example.test' } }).execute('fn');
    expect(server.requests.map((r) => r.headers['x-user'])).toEqual([
      'u-1 dev@example.test',
      'u-1 ops@example.test',
    ]);
  });
});

describe('older keys still run', () => {
  test('errorTransform: on a failure its result is what the function gives back, the failure stands', async () => {
    const server = await testServer((_, res) => json(res, 422, { error: { message: 'name taken' } }));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/items
errorTransform: '{ "message": error.message, "status": $$.status }'
`),
    );
    const failure = await runtime.execute('fn').catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'REMOTE_ERROR', status: 422 });
    expect((failure as { output: unknown }).output).toEqual({ message: 'name taken', status: 422 });
    // Kept out of serialised errors, like the response body.
    expect(JSON.stringify(failure)).not.toContain('name taken');
  });

  test("an error handler's table/transform writes its error table, like an operation would", async () => {
    const server = await testServer((_, res) => json(res, 409, { reason: 'duplicate' }));
    const { runtime, store } = syncSetup({
      'functions/rest-create.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/items
parameters:
  name: { location: body, type: string }
error:
  - when: =@ctx.response.status = 409
    title: Already there
    transform: '{ "id": @ctx.correlationId, "name": @ctx.parameters.name, "reason": @ctx.response.body.reason }'
`,
    });
    const failure = (await runtime
      .execute('rest-create', { name: 'x' }, { entity: 'items' })
      .catch((e: unknown) => e)) as { code: string; correlationId: string };
    expect(failure.code).toBe('REMOTE_ERROR');
    expect(store.rows('items_error')).toEqual([
      { id: failure.correlationId, name: 'x', reason: 'duplicate' },
    ]);
  });
});

describe('local data', () => {
  test('scope values may be literals and expressions; an operation may carry a scope', async () => {
    const server = await testServer((_, res) =>
      json(res, 200, [
        { id: 'o3', kind: 'order', region: 'eu', total: 30 },
        { id: 'l9', kind: 'line', region: 'eu', total: 1 },
      ]),
    );
    const { runtime, store } = syncSetup({
      'solution.yaml': 'name: s\nsettings:\n  custom:\n    maxTotal: 100\n',
      'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/orders
parameters:
  region: { location: query, type: string }
forRowsWithValues:
  region: region
  kind: order
forRowsInRange:
  total:
    from: 0
    to: =@ctx.solution.settings.custom.maxTotal
records: $[kind = 'order']
`,
      'functions/rest-get-lines.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/orders
parameters:
  region: { location: query, type: string }
operations:
  - type: operation.upsert-merge
    records: =$[kind = 'line']
    forRowsWithValues:
      region: region
      archived: false
`,
      'datasources/orders.platform': datasource('orders', 'rest-get-orders', { region: 'eu' }),
      'datasources/lines.platform': datasource('lines', 'rest-get-lines', { region: 'eu' }),
    });
    seed(store, 'orders', [
      { id: 'o1', kind: 'order', region: 'eu', total: 10 }, // in scope: replaced
      { id: 'o2', kind: 'order', region: 'eu', total: 500 }, // above the range: kept
      { id: 'o4', kind: 'quote', region: 'eu', total: 10 }, // another kind: kept
      { id: 'o5', kind: 'order', region: 'us', total: 10 }, // another region: kept
    ]);
    seed(store, 'lines', [
      { id: 'l1', region: 'eu', archived: false }, // in the operation's scope: deleted
      { id: 'l2', region: 'eu', archived: true }, // kept
    ]);
    await runtime.sync('orders');
    await runtime.sync('lines');
    expect(
      store
        .rows('orders')
        .map((r) => (r as { id: string }).id)
        .sort(),
    ).toEqual(['o2', 'o3', 'o4', 'o5']);
    expect(
      store
        .rows('lines')
        .map((r) => (r as { id: string }).id)
        .sort(),
    ).toEqual(['l2', 'l9']);
  });

  test('jsonColumns may be an expression', async () => {
    const server = await testServer((_, res) => json(res, 200, { ok: true }));
    const { runtime, store } = syncSetup(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
queries:
  tagged:
    statement: SELECT id, json_extract(data, '$.tags') AS tags FROM [items]
    jsonColumns: =['ta' & 'gs']
outputTransform: '@ctx.queries.tagged'
`),
    );
    store.ensureTable('items');
    store.db.prepare('INSERT INTO [items] (id, data) VALUES (?, ?)').run('a', '{"tags":["x","y"]}');
    expect(await runtime.execute('fn')).toMatchObject({ output: [{ id: 'a', tags: ['x', 'y'] }] });
  });
});
