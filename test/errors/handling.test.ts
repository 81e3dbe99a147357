import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { describe, expect, onTestFinished, test } from 'vitest';
import type { Alert } from '../../src/errors/alerts.js';
import type { Clock } from '../../src/errors/clock.js';
import type { ExecutionEvent } from '../../src/runtime/events.js';
import { recordingClock } from '../helpers/clock.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { datasource, syncSetup } from '../helpers/sync.js';

const fn = (url: string, extra = '', method = 'GET') => ({
  'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: ${method}\nurl: ${url}\n${extra}`,
});

/** Answers with `statuses` in turn (then the last one), each with optional headers. */
async function sequenceServer(
  steps: Array<{ status: number; headers?: Record<string, string>; body?: unknown }>,
) {
  let i = 0;
  return testServer((_, res) => {
    const step = steps[Math.min(i++, steps.length - 1)]!;
    json(res, step.status, step.body ?? { step: i }, step.headers);
  });
}

describe('rate limiting (429)', () => {
  test('without Retry-After: retried 3 times, 5 s apart, then raised', async () => {
    const server = await sequenceServer([{ status: 429 }]);
    const clock = recordingClock();
    const runtime = runtimeFor(fn(`${server.url}/x`, '', 'POST'), { clock });
    await expect(runtime.execute('fn')).rejects.toMatchObject({
      code: 'REMOTE_ERROR',
      status: 429,
      attempts: 4,
    });
    expect(server.requests).toHaveLength(4);
    expect(clock.delays).toEqual([5000, 5000, 5000]);
  });

  test.each([
    ['seconds', '2', 2000],
    ['an HTTP date', 'Sat, 21 Nov 2026 12:00:07 GMT', 7000],
    ['garbage (falls back to 5 s)', 'in a moment', 5000],
    ['a day (capped at 60 s)', '86400', 60000],
  ])('Retry-After as %s', async (_, value, delay) => {
    const server = await sequenceServer([
      { status: 429, headers: { 'retry-after': value } },
      { status: 200, body: { ok: 1 } },
    ]);
    const clock = recordingClock();
    const runtime = runtimeFor(fn(`${server.url}/x`), { clock });
    expect(await runtime.execute('fn')).toMatchObject({ status: 'ok', output: { ok: 1 } });
    expect(clock.delays).toEqual([delay]);
  });

  test('a handler matching 429 overrides the default: its own delay expression and count', async () => {
    const server = await sequenceServer([{ status: 429, headers: { 'retry-after': '3' } }]);
    const clock = recordingClock();
    const runtime = runtimeFor(
      fn(
        `${server.url}/x`,
        `error:
  - when: =@ctx.response.status = 429
    retry:
      delay: '=$number($exists(@ctx.response.headers."retry-after") ? @ctx.response.headers."retry-after" : 5) * 1000'
      maxRetries: 1
`,
      ),
      { clock },
    );
    await expect(runtime.execute('fn')).rejects.toMatchObject({ status: 429, attempts: 2, handler: 1 });
    expect(clock.delays).toEqual([3000]);
    const noRetry = runtimeFor(
      fn(`${server.url}/y`, 'error:\n  - when: =@ctx.response.status = 429\n    title: Slow down\n'),
      {
        clock,
      },
    );
    await expect(noRetry.execute('fn')).rejects.toMatchObject({
      status: 429,
      attempts: 1,
      title: 'Slow down',
    });
  });
});

test('an abort during a retry wait ends it at once (real clock)', async () => {
  const server = await sequenceServer([{ status: 429, headers: { 'retry-after': '30' } }]);
  const { SYSTEM_CLOCK } = await import('../../src/errors/clock.js');
  const controller = new AbortController();
  const steps: string[] = [];
  // The real clock's 30 s wait, aborted from inside it: the abort cannot come before the wait.
  const clock: Clock = {
    now: SYSTEM_CLOCK.now,
    sleep(ms, signal) {
      steps.push(`wait ${ms} ms`);
      const waiting = SYSTEM_CLOCK.sleep(ms, signal);
      controller.abort();
      return waiting.then(
        () => void steps.push('wait completed'),
        (error) => {
          steps.push('wait aborted');
          throw error;
        },
      );
    },
  };
  const runtime = runtimeFor(fn(`${server.url}/x`), { clock });
  runtime.on((event) => {
    if (event.type === 'retried') steps.push(`retry after ${event.delayMs} ms`);
  });
  await expect(runtime.execute('fn', {}, {}, { signal: controller.signal })).rejects.toMatchObject({
    code: 'ABORTED',
  });
  // The 30 s wait was entered, then cut short by the abort (it did not run out).
  expect(steps).toEqual(['retry after 30000 ms', 'wait 30000 ms', 'wait aborted']);
  expect(server.requests).toHaveLength(1);
});

describe('authorization (401, 403)', () => {
  const oauth = `parameters:
  accessToken: { location: header, type: crm.oauth, value: crm }
`;
  /** Stands in for the OAuth store of the authentication issue: hands out token N, records refreshes. */
  function tokens() {
    let n = 1;
    const refreshes: boolean[] = [];
    return {
      refreshes,
      apply: async (r: { parameter: string; refresh?: boolean }) => {
        refreshes.push(r.refresh === true);
        if (r.refresh) n++;
        return {
          values: [{ name: 'authorization', location: 'header' as const, value: `Bearer token-${n}` }],
        };
      },
    };
  }

  test('401 then 200: retried once with a refreshed token', async () => {
    const server = await testServer((req, res) =>
      req.headers.authorization === 'Bearer token-2' ? json(res, 200, { ok: true }) : json(res, 401, {}),
    );
    const credentials = tokens();
    const runtime = runtimeFor(fn(`${server.url}/x`, oauth), { credentials });
    expect(await runtime.execute('fn')).toMatchObject({ output: { ok: true } });
    expect(credentials.refreshes).toEqual([false, true]);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  test('401 every time: 3 refreshes, then raised; disableTokenRefresh or no OAuth: no retry', async () => {
    const server = await testServer((_, res) => json(res, 401, {}));
    const credentials = tokens();
    const runtime = runtimeFor(fn(`${server.url}/x`, oauth), { credentials });
    await expect(runtime.execute('fn')).rejects.toMatchObject({ status: 401, attempts: 4 });
    expect(credentials.refreshes).toEqual([false, true, true, true]);

    const disabled = runtimeFor(fn(`${server.url}/y`, `${oauth}disableTokenRefresh: true\n`), {
      credentials: tokens(),
    });
    await expect(disabled.execute('fn')).rejects.toMatchObject({ status: 401, attempts: 1 });
    const plain = runtimeFor(fn(`${server.url}/z`));
    await expect(plain.execute('fn')).rejects.toMatchObject({ status: 401, attempts: 1 });
  });

  test('403 with a custom handler: localised texts, details, a modal alert, no retry', async () => {
    const server = await testServer((_, res) => json(res, 403, { reason: 'role missing' }));
    const runtime = runtimeFor(
      fn(
        `${server.url}/x`,
        `error:
  - when: =@ctx.response.status = 403
    notification: true
    title:
      en: Not allowed
      de: Nicht erlaubt
    description: You may not do this.
    details: =@ctx.response.body.reason
    alert:
      title: Access denied
      presentAs: modal
      icon: lock
      group:
        id: access
`,
      ),
      { locale: 'de-CH' },
    );
    const alerts: Alert[] = [];
    runtime.on((e) => e.type === 'alert' && alerts.push(e.alert));
    const error = await runtime.execute('fn').catch((e) => e);
    expect(error).toMatchObject({
      code: 'REMOTE_ERROR',
      status: 403,
      attempts: 1,
      title: 'Nicht erlaubt',
      description: 'You may not do this.',
    });
    expect(error.details).toBe('role missing');
    expect(alerts).toEqual([
      expect.objectContaining({
        title: 'Access denied',
        description: 'You may not do this.',
        presentAs: 'modal',
        icon: 'lock',
        groupId: 'access',
        count: 1,
      }),
    ]);
  });
});

describe('server errors', () => {
  test('500 then 200: not retried by default; retried by a handler that says so', async () => {
    const plainServer = await sequenceServer([{ status: 500 }, { status: 200 }]);
    const plain = runtimeFor(fn(`${plainServer.url}/x`));
    await expect(plain.execute('fn')).rejects.toMatchObject({
      status: 500,
      attempts: 1,
      title: 'Request failed',
    });

    const server = await sequenceServer([
      { status: 500 },
      { status: 502 },
      { status: 200, body: { ok: true } },
    ]);
    const clock = recordingClock();
    const retrying = runtimeFor(
      fn(
        `${server.url}/x`,
        'error:\n  - when: =@ctx.response.status >= 500\n    retry:\n      delay: 250\n      maxRetries: 2\n',
        'POST',
      ),
      { clock },
    );
    expect(await retrying.execute('fn')).toMatchObject({ output: { ok: true } });
    expect(server.requests).toHaveLength(3);
    expect(clock.delays).toEqual([250, 250]);
  });

  test('an error page in HTML still reports the status, not a format error', async () => {
    const server = await testServer((_, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    });
    const runtime = runtimeFor(fn(`${server.url}/x`));
    const error = await runtime.execute('fn').catch((e) => e);
    expect(error).toMatchObject({ code: 'REMOTE_ERROR', status: 502 });
    expect(error.details).toBe('<h1>Bad gateway</h1>');
  });

  test('a handler that matches a 200 makes it an error (spec 7.5 rule 4): data does not load', async () => {
    const server = await testServer((_, res) => json(res, 200, [{ id: 'a' }]));
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\nerror:\n  - when: =@ctx.response.status != 404\n`,
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    store.ensureTable('items');
    store.db.prepare(`INSERT INTO [items] VALUES ('old', '{"id":"old"}')`).run();
    await expect(runtime.sync('items')).rejects.toMatchObject({
      code: 'REMOTE_ERROR',
      status: 200,
      handler: 1,
    });
    expect(store.rows('items')).toEqual([{ id: 'old' }]);
  });
});

describe('network failures', () => {
  async function rawServer(onData: (socket: import('node:net').Socket) => void) {
    let connections = 0;
    const server = createNetServer((socket) => {
      connections++;
      socket.once('data', () => onData(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      connections: () => connections,
    };
  }

  test('reset connections: GET is retried twice (1 s, 2 s), POST never', async () => {
    const server = await rawServer((socket) => socket.resetAndDestroy());
    const clock = recordingClock();
    const get = runtimeFor(fn(`${server.url}/x`), { clock });
    await expect(get.execute('fn')).rejects.toMatchObject({ code: 'NETWORK_ERROR', attempts: 3 });
    expect(clock.delays).toEqual([1000, 2000]);
    const post = runtimeFor(fn(`${server.url}/x`, '', 'POST'), { clock });
    await expect(post.execute('fn')).rejects.toMatchObject({ code: 'NETWORK_ERROR', attempts: 1 });
    expect(server.connections()).toBe(4);
  });

  test('truncated bodies: NETWORK_ERROR; a handler can ask for retries of a POST', async () => {
    const server = await rawServer((socket) => {
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n{"cut":');
    });
    const clock = recordingClock();
    const runtime = runtimeFor(
      fn(
        `${server.url}/x`,
        'error:\n  - when: =@ctx.error.name = "NETWORK_ERROR"\n    retry:\n      delay: 10\n      maxRetries: 1\n',
        'POST',
      ),
      { clock },
    );
    await expect(runtime.execute('fn')).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      attempts: 2,
      handler: 1,
    });
    expect(server.connections()).toBe(2);
  });

  test('refused ports: retried for GET, then NETWORK_ERROR with ECONNREFUSED', async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const clock = recordingClock();
    const runtime = runtimeFor(fn(`http://127.0.0.1:${port}/x`), { clock });
    await expect(runtime.execute('fn')).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      causeCode: 'ECONNREFUSED',
      attempts: 3,
    });
    expect(clock.delays).toEqual([1000, 2000]);
  });
});

describe('alerts and error tables', () => {
  test('default errors are grouped by title within the window; custom ones are not, unless they share a group', async () => {
    const server = await testServer((req, res) => json(res, req.url === '/a' ? 500 : 409, {}));
    const clock = recordingClock();
    const runtime = runtimeFor(
      {
        'functions/plain.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${server.url}/a\n`,
        'functions/custom.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${server.url}/b\nerror:\n  - notification: true\n    title: Conflict\n`,
        'functions/grouped.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${server.url}/b\nerror:\n  - alert:\n      title: Conflict\n      group:\n        id: g\n`,
      },
      { clock },
    );
    const alerts: Alert[] = [];
    runtime.on((e: ExecutionEvent) => e.type === 'alert' && alerts.push(e.alert));
    const fail = (name: string) => runtime.execute(name).catch(() => undefined);
    await fail('plain');
    await fail('plain');
    clock.advance(11_000);
    await fail('plain');
    await fail('custom');
    await fail('custom');
    await fail('grouped');
    await fail('grouped');
    const [p1, p2, p3, c1, c2, g1, g2] = alerts;
    expect([p1!.count, p2!.count, p3!.count]).toEqual([1, 2, 1]);
    expect(p2!.id).toBe(p1!.id);
    expect(p3!.id).not.toBe(p1!.id);
    expect(c2!.id).not.toBe(c1!.id);
    expect(g2).toMatchObject({ id: g1!.id, count: 2, groupId: 'g' });
  });

  test('handler operations write the error table with the context spec 7.3 lists, credentials masked', async () => {
    const SECRET = 'Zq8mK2pLx9Rv4Tn7';
    const server = await testServer((_, res) => json(res, 422, { field: 'name' }, { 'x-trace': 't-1' }));
    const { runtime, store } = syncSetup({
      'solution.yaml': 'name: crm\n',
      'functions/rest-save.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/save
parameters:
  id: { location: body, type: string }
  x-api-key: { location: header, type: secret, value: k }
forRowsWithMatchingIds: true
error:
  - when: =@ctx.response.status = 422
    operations:
      - type: operation.upsert-merge
        records: |
          {
            "id": @ctx.commandId,
            "status": @ctx.response.status,
            "body": @ctx.response.body,
            "trace": @ctx.response.headers."x-trace",
            "param": @ctx.parameters.id,
            "request": @ctx.request,
            "entity": @ctx.entity,
            "solution": @ctx.solution.name,
            "correlationId": @ctx.correlationId
          }
      - type: operation.upsert-merge
        when: false
        table: never
        records: '{ "id": "x" }'
`,
      'datasources/save.platform': datasource('orders', 'rest-save', { id: 'o-1' }),
    });
    const credentials = {
      apply: async (r: { parameter: string }) => ({
        values: [{ name: r.parameter, location: 'header' as const, value: SECRET }],
      }),
    };
    const { createRuntime } = await import('../../src/runtime/runtime.js');
    const withCredentials = createRuntime(runtime.solution, { store, credentials, clock: recordingClock() });
    const error = await withCredentials.sync('save', { context: { commandId: 'cmd-7' } }).catch((e) => e);
    await withCredentials.close();
    expect(error).toMatchObject({ status: 422 });
    const [row] = store.rows('orders_error') as Array<Record<string, unknown>>;
    expect(row).toMatchObject({
      id: 'cmd-7',
      status: 422,
      body: { field: 'name' },
      trace: 't-1',
      param: 'o-1',
      entity: 'orders',
      solution: 'crm',
      correlationId: error.correlationId,
      request: { method: 'POST', url: `${server.url}/save` },
    });
    expect((row!.request as { headers: Record<string, string> }).headers['x-api-key']).toBe('***');
    expect(store.hasTable('never')).toBe(false);
    const stored = store.db.prepare('SELECT data FROM [orders_error]').all();
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(JSON.stringify(error)).not.toContain(SECRET);
    expect(store.rows('orders')).toEqual([]);
  });
});
