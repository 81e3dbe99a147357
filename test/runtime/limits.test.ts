import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { StoreCredentialProvider } from '../../src/auth/provider.js';
import { CredentialStore } from '../../src/auth/store.js';
import { loadSolution } from '../../src/definition/solution.js';
import { LocalStore } from '../../src/local/store.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { recordingClock } from '../helpers/clock.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { datasource } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

/** Starts a JSON body and then sends one more byte every 20 ms, for as long as the client listens. */
function drip(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('[');
  const timer = setInterval(() => res.write(' '), 20);
  res.on('close', () => clearInterval(timer));
}

/** Writes chunks of 64 KiB for as long as the client reads; resolves `closed` when the client hangs up. */
function endless(res: ServerResponse, headers: Record<string, string> = {}): Promise<number> {
  res.writeHead(200, { 'content-type': 'text/plain', ...headers });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  let open = true;
  return new Promise((resolve) => {
    res.on('close', () => {
      open = false;
      resolve(written);
    });
    const pump = () => {
      while (open) {
        written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

const fn = (url: string, extra = '') =>
  `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}\nformat: json\n${extra}`;

describe('deadlines (issue 10, item 12)', () => {
  test('a service that drips one byte at a time is stopped by the per-request deadline, then retried', async () => {
    const server = await testServer((_req, res) => drip(res));
    const runtime = runtimeFor({
      // The pause between bytes never reaches bodyTimeoutMs: only the total deadline can stop it.
      'solution.yaml': 'settings:\n  http:\n    requestTimeoutMs: 300\n    bodyTimeoutMs: 30000\n',
      'functions/slow.platform': fn(`${server.url}/slow`),
    });
    const error = await runtime.execute('slow').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TIMEOUT', phase: 'request', limitMs: 300, attempts: 3 });
    expect((error as Error).message).toContain('settings.http.requestTimeoutMs');
    expect(server.requests).toHaveLength(3);
  });

  test('the execution deadline covers every attempt: it stops a request that its own deadline allows', async () => {
    const server = await testServer((_req, res) => drip(res));
    const runtime = runtimeFor(
      { 'functions/slow.platform': fn(`${server.url}/slow`) },
      { executionTimeoutMs: 300, http: { requestTimeoutMs: 60_000 } },
    );
    const error = await runtime.execute('slow').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TIMEOUT', phase: 'execution', limitMs: 300 });
    expect((error as Error).message).toMatch(
      /^function 'slow' did not finish in time \(limit 300 ms; raise settings\.execution\.timeoutMs in solution\.yaml\); it was stopped during GET http/,
    );
  });

  test('the execution deadline also stops a token endpoint that drips', async () => {
    const tokens = await testServer((_req, res) => drip(res));
    const api = await testServer((_req, res) => json(res, 200, {}));
    const root = tempSolution({
      'functions/me.platform': fn(
        `${api.url}/me`,
        'parameters:\n  accessToken: { location: header, type: generic.oauth, value: web }\n',
      ),
    });
    const store = new CredentialStore(join(root, '.restfn', 'credentials.db'), randomBytes(32));
    store.set('web', {
      kind: 'oauth',
      tokenEndpoint: `${tokens.url}/token`,
      clientId: 'c',
      clientSecret: 's',
      scopes: [],
      grantType: 'client_credentials',
    });
    const clock = recordingClock();
    const runtime = createRuntime(loadSolution(root), {
      credentials: new StoreCredentialProvider(() => store, clock),
      clock,
      executionTimeoutMs: 300,
    });
    const error = await runtime.execute('me').catch((e: unknown) => e);
    await runtime.close();
    expect(error).toMatchObject({ code: 'TIMEOUT', phase: 'execution', limitMs: 300 });
    expect(tokens.requests).toHaveLength(1);
    expect(api.requests).toHaveLength(0);
  });

  test('a deadline that passes inside the guard ends the run with TIMEOUT, not as a failed guard', async () => {
    const server = await testServer((req, res) => (req.url === '/guard' ? drip(res) : json(res, 200, [])));
    const runtime = runtimeFor(
      {
        'functions/check.platform': fn(`${server.url}/guard`),
        'functions/main.platform': fn(`${server.url}/main`, 'guard:\n  function: check\n'),
      },
      { executionTimeoutMs: 300 },
    );
    await expect(runtime.execute('main')).rejects.toMatchObject({ code: 'TIMEOUT', phase: 'execution' });
    expect(server.requests.map((r) => r.url)).toEqual(['/guard']);
  });

  test('the sync deadline covers all pages; the table keeps what it had', async () => {
    const server = await testServer((req, res) => {
      if (req.url.includes('page=2')) return drip(res);
      json(res, 200, { items: [{ id: 'new' }], next: 2 });
    });
    const root = tempSolution({
      'solution.yaml': 'settings:\n  sync:\n    timeoutMs: 400\n',
      'functions/items.platform': fn(
        `${server.url}/items`,
        `parameters:\n  page: { location: query, type: int, value: 1 }\nrecords: $.items\ncontinuation:\n  when: =$exists(@ctx.output.next)\n  parameters:\n    page: { location: query, type: int, value: =@ctx.output.next }\n`,
      ),
      'datasources/items.platform': datasource('items', 'items'),
    });
    const store = new LocalStore(join(root, '.restfn', 'local.db'));
    store.ensureTable('items');
    store.db.prepare(`INSERT INTO [items] VALUES ('old', '{"id":"old"}')`).run();
    const runtime = createRuntime(loadSolution(root, { displayBase: root }), {
      store,
      clock: recordingClock(),
    });
    try {
      const error = await runtime.sync('items').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'TIMEOUT', phase: 'sync', limitMs: 400 });
      expect((error as Error).message).toMatch(
        /^datasource 'items' did not finish in time .*settings\.sync\.timeoutMs/,
      );
      expect(server.requests.map((r) => r.url)).toEqual(['/items?page=1', '/items?page=2']);
      expect(store.rows('items').map((r) => r.id)).toEqual(['old']);
    } finally {
      await runtime.close();
      store.close();
    }
  });
});

describe('response size (issue 10, item 13)', () => {
  test('an endless body stops at the cap: RESPONSE_TOO_LARGE, not retried, and the client hangs up', async () => {
    let closed: Promise<number> | undefined;
    const server = await testServer((_req, res) => {
      closed = endless(res);
    });
    const runtime = runtimeFor({
      'solution.yaml': 'settings:\n  http:\n    maxResponseMb: 1\n',
      'functions/big.platform': fn(`${server.url}/big`).replace('format: json', 'format: text'),
    });
    const error = await runtime.execute('big').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', limitBytes: 1024 * 1024, attempts: 1 });
    expect((error as Error).message).toContain('settings.http.maxResponseMb');
    expect(server.requests).toHaveLength(1);
    // The server only stops writing because the client closed the connection: reading stopped.
    expect(await closed).toBeGreaterThan(1024 * 1024);
  });

  test('a Content-Length over the cap is refused before reading the body', async () => {
    let closed: Promise<void> | undefined;
    const server = await testServer((_req, res) => {
      // Headers only: a client that waited for the declared body would wait for its body timeout.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(5 * 1024 * 1024) });
      res.flushHeaders();
      closed = new Promise((resolve) => res.on('close', () => resolve()));
    });
    const runtime = runtimeFor(
      { 'functions/big.platform': fn(`${server.url}/big`) },
      { http: { maxResponseBytes: 1024 * 1024, bodyTimeoutMs: 60_000 } },
    );
    const error = await runtime.execute('big').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    expect((error as Error).message).toContain(`${5 * 1024 * 1024} bytes (Content-Length)`);
    await closed;
  });

  test('a body exactly at the cap is read', async () => {
    const body = JSON.stringify('x'.repeat(1000 - 2));
    const server = await testServer((_req, res) => json(res, 200, JSON.parse(body)));
    const runtime = runtimeFor(
      { 'functions/fits.platform': fn(`${server.url}/fits`) },
      { http: { maxResponseBytes: body.length } },
    );
    const result = await runtime.execute('fits');
    expect(result.status === 'ok' && (result.output as string).length).toBe(998);
  });
});

describe('response nesting (issue 10, item 14)', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  test.each([
    ['json', nested(5000)],
    ['xml', `${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}`],
  ])('a %s body nested 5,000 deep is RESPONSE_TOO_DEEP, not a stack overflow', async (format, body) => {
    const server = await testServer((_req, res) => {
      res.writeHead(200, { 'content-type': `application/${format}` });
      res.end(body);
    });
    const runtime = runtimeFor({
      'functions/deep.platform': fn(`${server.url}/deep`).replace('format: json', `format: ${format}`),
    });
    const error = await runtime.execute('deep').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_DEEP', limit: 256, attempts: 1 });
  });

  test('brackets inside strings do not count; nesting at the limit passes every step, storing included', async () => {
    const deep = JSON.parse(nested(256));
    const server = await testServer((_req, res) => json(res, 200, { id: 'r1', deep, text: '[[[[[[[[[[' }));
    const root = tempSolution({
      'solution.yaml': 'settings:\n  http:\n    maxResponseDepth: 257\n',
      'functions/deep.platform': fn(`${server.url}/deep`, 'outputTransform: $\n'),
      'datasources/deep.platform': datasource('deep', 'deep'),
    });
    const store = new LocalStore(join(root, '.restfn', 'local.db'));
    const runtime = createRuntime(loadSolution(root, { displayBase: root }), { store });
    try {
      const result = await runtime.execute('deep');
      expect(result.status === 'ok' && (result.output as { deep: unknown }).deep).toEqual(deep);
      await runtime.sync('deep');
      expect(store.rows('deep').map((r) => r.id)).toEqual(['r1']);
    } finally {
      await runtime.close();
      store.close();
    }
  });
});
