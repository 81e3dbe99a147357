import { describe, expect, test } from 'vitest';
import type { ExecutionEvent } from '../../src/runtime/events.js';
import { recordingClock } from '../helpers/clock.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { syncSetup } from '../helpers/sync.js';

const SECRET = 'Zq8mK2pLx9Rv4Tn7Wc3Y';
const secretProvider = {
  apply: async (r: { parameter: string; location: 'header' | 'query' | 'path' | 'body' | 'output' }) => ({
    values: [{ name: r.parameter, location: r.location, value: SECRET }],
  }),
};

describe('credentials never follow a redirect to another origin', () => {
  test('same-origin redirects are followed; a redirect elsewhere is refused and the other host sees nothing', async () => {
    const elsewhere = await testServer((_, res) => json(res, 200, { stolen: true }));
    const server = await testServer((req, res) => {
      if (req.url === '/old') res.writeHead(302, { location: '/new' }).end();
      else if (req.url === '/away') res.writeHead(302, { location: `${elsewhere.url}/collect` }).end();
      else json(res, 200, { at: req.url, key: req.headers['x-api-key'] === SECRET });
    });
    const fn = (path: string) => ({
      'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}${path}\nparameters:\n  x-api-key: { location: header, type: secret, value: k }\n`,
    });
    const same = runtimeFor(fn('/old'), { credentials: secretProvider });
    expect(await same.execute('fn')).toMatchObject({ output: { at: '/new', key: true } });
    const away = runtimeFor(fn('/away'), { credentials: secretProvider });
    const error = await away.execute('fn').catch((e) => e);
    expect(error).toMatchObject({ code: 'REDIRECT_LIMIT' });
    expect(error.message).toContain('not followed because the request carries credentials');
    expect(elsewhere.requests).toHaveLength(0);
  });
});

describe('response headers are masked where they are shown', () => {
  test('set-cookie does not reach events or @ctx.response.headers', async () => {
    const server = await testServer((_, res) =>
      json(res, 200, { ok: true }, { 'set-cookie': 'session=s3cr3t-cookie', 'x-trace': 't1' }),
    );
    const runtime = runtimeFor({
      'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\noutput: '=@ctx.response.headers'\n`,
    });
    const events: ExecutionEvent[] = [];
    runtime.on((e) => events.push(e));
    const result = await runtime.execute('fn');
    expect(result).toMatchObject({ output: { 'set-cookie': '***', 'x-trace': 't1' } });
    expect(JSON.stringify(events)).not.toContain('s3cr3t-cookie');
  });
});

describe('conversions and retries', () => {
  test('a retried call converts the original values again, not the converted ones', async () => {
    let calls = 0;
    const server = await testServer((_, res) => json(res, calls++ === 0 ? 503 : 200, {}));
    const clock = recordingClock();
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/upload
parameters:
  photo: { location: body, type: object }
conversions:
  - property: photo.data
    from: base64
    to: data-uri
error:
  - when: =@ctx.response.status = 503
    retry: { delay: 1, maxRetries: 1 }
`,
      },
      { clock },
    );
    const photo = { data: Buffer.from('png-bytes').toString('base64') };
    await runtime.execute('fn', { photo });
    expect(server.requests.map((r) => JSON.parse(r.body).photo.data)).toEqual([
      `data:application/octet-stream;base64,${photo.data}`,
      `data:application/octet-stream;base64,${photo.data}`,
    ]);
    expect(photo.data).toBe(Buffer.from('png-bytes').toString('base64'));
  });
});

describe('errors and their reports', () => {
  test('a failing details expression does not hide the failure it reports', async () => {
    const server = await testServer((_, res) => json(res, 404, {}));
    const runtime = runtimeFor({
      'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\nerror:\n  - when: =@ctx.response.status = 404\n    details: =$number("not a number")\n`,
    });
    const error = await runtime.execute('fn').catch((e) => e);
    expect(error).toMatchObject({ code: 'REMOTE_ERROR', status: 404 });
    expect(error.message).toContain('reporting it failed too');
    expect(error.reportErrors[0]).toMatchObject({ code: 'EXPRESSION_EVALUATION' });
  });

  test('a url written as an expression is evaluated', async () => {
    const server = await testServer((req, res) => json(res, 200, { at: req.url }));
    const runtime = runtimeFor({
      'solution.yaml': `name: s\nsettings:\n  custom:\n    base: ${server.url}\n`,
      'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: "=@ctx.solution.settings.custom.base & '/items/' & @ctx.parameters.id"\nparameters:\n  id: { location: output, type: string }\n`,
    });
    expect(await runtime.execute('fn', { id: '7' })).toMatchObject({ output: { at: '/items/7' } });
  });

  test('guards that call each other stop with a definition error instead of recursing forever', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const guarded = (name: string, guard: string) =>
      `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/${name}\nguard:\n  function: ${guard}\n`;
    const { runtime } = syncSetup({
      'functions/rest-a.platform': guarded('a', 'rest-b'),
      'functions/rest-b.platform': guarded('b', 'rest-a'),
    });
    await expect(runtime.execute('rest-a')).rejects.toMatchObject({ code: 'INVALID_DEFINITION' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('a path value stays one path segment (issue 10 item 1)', () => {
  const notes = (url: string) => ({
    'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: DELETE
url: ${url}/api/users/{userId}/notes/{noteId}
parameters:
  userId: { location: path, type: string, required: true }
  noteId: { location: path, type: string, required: true }
`,
  });

  test('every reserved character arrives encoded inside its own segment, decoding to the value', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(notes(server.url));
    const values = [...":/?#[]@!$&'()*+,;=%", ' ', '\\', '..x', '.x', 'x..', 'a/../b', 'Ü日', '%2F', '%00'];
    for (const value of values) await runtime.execute('fn', { userId: 'u', noteId: value });
    const segments = server.requests.map((r) => r.url.split('/'));
    for (const [i, value] of values.entries()) {
      expect(segments[i]!.slice(0, 5)).toEqual(['', 'api', 'users', 'u', 'notes']);
      expect(segments[i], value).toHaveLength(6);
      expect(decodeURIComponent(segments[i]![5]!)).toBe(value);
    }
  });

  test.each([
    ['..', '..'],
    ['.', '.'],
    ['%2E%2E', '%2e'],
    ['..', 'n1'],
  ])('userId %s, noteId %s: INVALID_URL_VALUE, nothing sent', async (userId, noteId) => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(notes(server.url));
    await expect(runtime.execute('fn', { userId, noteId })).rejects.toMatchObject({
      code: 'INVALID_URL_VALUE',
    });
    expect(server.requests).toHaveLength(0);
  });
});

test('a parameter named like an Object method takes its default, not the inherited function', async () => {
  const server = await testServer((_, res) => json(res, 200, {}));
  const runtime = runtimeFor({
    'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
parameters:
  toString: { location: query, type: string, value: dflt }
  constructor: { location: query, type: string, value: c }
`,
  });
  await runtime.execute('fn');
  expect(server.requests[0]!.url).toBe('/x?toString=dflt&constructor=c');
});

test.each(['file:///etc/passwd', 'ftp://127.0.0.1/x'])(
  'a redirect to %s is REDIRECT_LIMIT, not a network failure, and not retried',
  async (location) => {
    const server = await testServer((_, res) => res.writeHead(302, { location }).end());
    const runtime = runtimeFor({
      'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\n`,
    });
    const error = await runtime.execute('fn').catch((e) => e);
    expect(error).toMatchObject({ code: 'REDIRECT_LIMIT', attempts: 1 });
    expect(error.message).toContain('not a valid http or https address');
    expect(server.requests).toHaveLength(1);
  },
);
