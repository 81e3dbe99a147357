import { createRequire } from 'node:module';
import * as undici from 'undici';
import { describe, expect, test } from 'vitest';
import { Agent, buildConnector, errors, request } from '../../src/http/undici-parts.js';
import { json, testServer } from '../helpers/http-server.js';

// restfn imports undici's agent, request API and errors by file (start-up, issue 11). undici's file
// layout is not its public API: these fail when an upgrade moves or replaces those files, so the
// upgrade is noticed here rather than as a broken `restfn run`.

describe("undici's parts by file are the package's own", () => {
  test('Agent and the error classes are the ones the package index exports', () => {
    expect(Agent).toBe(undici.Agent);
    expect(buildConnector).toBe(undici.buildConnector);
    expect(errors).toBe(undici.errors);
    for (const name of [
      'ConnectTimeoutError',
      'HeadersTimeoutError',
      'BodyTimeoutError',
      'RequestAbortedError',
    ] as const) {
      expect(typeof errors[name]).toBe('function');
      expect(errors[name]).toBe(undici.errors[name]);
    }
  });

  test('the request API is the one behind the index `request` and `Dispatcher.prototype.request`', () => {
    const require = createRequire(import.meta.url);
    expect(undici.Dispatcher.prototype.request).toBe(require('undici/lib/api/api-request.js'));
    expect(typeof require('undici/lib/core/util.js').parseURL).toBe('function');
  });

  test('request sends through the given agent: method, path and query, headers, body', async () => {
    const server = await testServer((req, res) =>
      json(res, 201, { method: req.method, url: req.url, header: req.headers['x-a'], body: req.body }),
    );
    const dispatcher = new Agent();
    try {
      const res = await request(`${server.url}/items?x=1&y=2`, {
        dispatcher,
        method: 'POST',
        headers: { 'x-a': 'b' },
        body: 'hello',
      });
      expect(res.statusCode).toBe(201);
      expect(await res.body.json()).toEqual({
        method: 'POST',
        url: '/items?x=1&y=2',
        header: 'b',
        body: 'hello',
      });
    } finally {
      await dispatcher.close();
    }
  });
});
