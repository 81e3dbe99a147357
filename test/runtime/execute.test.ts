import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import type { ExecutionEvent } from '../../src/runtime/events.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { recordingClock } from '../helpers/clock.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { tempSolution } from '../helpers/temp-solution.js';

const fn = (yaml: string) => ({ 'functions/fn.platform': yaml });

describe('parameters reach their locations', () => {
  test('path, query, header and body values arrive as the spec says; output values never leave', async () => {
    const server = await testServer((_, res) => json(res, 200, { ok: true }));
    const runtime = runtimeFor({
      'solution.yaml': 'name: s\nsettings:\n  custom:\n    region: eu\n',
      ...fn(`provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/customers/{id}/notes?dropped=1
parameters:
  id: { location: path, type: string, required: true }
  tags: { location: query, type: array }
  region: { location: query, type: string, value: =@ctx.solution.settings.custom.region }
  X-Request-Source: { location: header, type: string, value: restfn }
  text: { location: body, type: string, required: true }
  priority: { location: body, type: int, value: 3 }
  urgent: { location: body, type: boolean }
  internal: { location: output, type: string, value: do-not-send }
`),
    });
    const result = await runtime.execute('fn', {
      id: 'a b/1',
      tags: '["x","y"]',
      text: 'hello',
      urgent: 'true',
    });
    expect(result.status).toBe('ok');
    const [req] = server.requests;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/customers/a%20b%2F1/notes?tags=x&tags=y&region=eu');
    expect(req!.headers['x-request-source']).toBe('restfn');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({ text: 'hello', priority: 3, urgent: true });
    expect(JSON.stringify(req)).not.toContain('do-not-send');
  });

  test('a missing required parameter fails before any request is sent', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/c/{id}
parameters:
  id: { location: path, type: string, required: true }
  q: { location: query, type: string, required: true }
`),
    );
    await expect(runtime.execute('fn', {})).rejects.toMatchObject({
      code: 'PARAMETER_REQUIRED',
      // The library's words; the CLI adds how to pass them (-p).
      message: "missing required parameters 'id', 'q'",
    });
    expect(server.requests).toHaveLength(0);
  });

  test('values are coerced to the declared type, with a clear error when they cannot be', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/c
parameters:
  n: { location: query, type: int }
`),
    );
    await expect(runtime.execute('fn', { n: '1.5' })).rejects.toMatchObject({
      code: 'PARAMETER_TYPE',
      parameter: 'n',
    });
    await runtime.execute('fn', { n: '07' });
    expect(server.requests.at(-1)!.url).toBe('/c?n=7');
  });
});

describe('transforms and when', () => {
  test('inputTransform builds the body from parameters; outputTransform reads the body and @ctx', async () => {
    const server = await testServer((req, res) =>
      json(res, 201, {
        items: [
          { id: 1, n: 'a' },
          { id: 2, n: 'b' },
        ],
        echo: JSON.parse(req.body),
      }),
    );
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: PUT
url: ${server.url}/x
parameters:
  name: { location: body, type: string }
  suffix: { location: output, type: string, value: "!" }
inputTransform: '{ "payload": { "name": $uppercase(name) } }'
outputTransform: |
  {
    "names": items.(n & @ctx.parameters.suffix),
    "status": @ctx.response.status,
    "sent": echo.payload.name
  }
`),
    );
    const result = await runtime.execute('fn', { name: 'ada' });
    expect(server.requests[0]!.body).toBe('{"payload":{"name":"ADA"}}');
    expect(result).toMatchObject({ status: 'ok', output: { names: ['a!', 'b!'], status: 201, sent: 'ADA' } });
  });

  test('$now() and $millis() are the time of each execution, one instant within it', async () => {
    const server = await testServer((_, res) => json(res, 200, { ok: true }));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
outputTransform: '{ "at": $millis(), "now": $now(), "same": $now() = $now() and $millis() = $millis() }'
`),
    );
    type Stamp = { at: number; now: string; same: boolean };
    const stamp = async () => {
      const result = await runtime.execute('fn');
      if (result.status !== 'ok') throw new Error(`not run: ${result.status}`);
      return result.output as Stamp;
    };
    const first = await stamp();
    // A real gap, however short: until the clock has moved past the first stamp.
    while (Date.now() <= first.at) await new Promise((resolve) => setImmediate(resolve));
    const second = await stamp();
    expect(first.same && second.same).toBe(true);
    expect(second.at).toBeGreaterThan(first.at);
    expect(second.now).not.toBe(first.now);
    expect(new Date(second.now).getTime()).toBe(second.at);
  });

  test('without outputTransform the output is the whole body; `output` reshapes it further', async () => {
    const server = await testServer((_, res) => json(res, 200, { a: 1, b: [1, 2] }));
    const plain = runtimeFor(fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\n`));
    expect(await plain.execute('fn')).toMatchObject({ output: { a: 1, b: [1, 2] } });
    const shaped = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\noutput: =$count(b)\n`),
    );
    expect(await shaped.execute('fn')).toMatchObject({ output: 2 });
  });

  test('a false `when` skips the call: a result, not an error', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
parameters:
  go: { location: output, type: boolean }
when: =@ctx.parameters.go
`),
    );
    const events: ExecutionEvent[] = [];
    runtime.on((e) => events.push(e));
    expect(await runtime.execute('fn', { go: 'false' })).toMatchObject({
      status: 'skipped',
      reason: 'when is false',
    });
    expect(server.requests).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual(['skipped']);
    expect(await runtime.execute('fn', { go: true })).toMatchObject({ status: 'ok' });
    expect(server.requests).toHaveLength(1);
  });

  test('an expression failing at run time names the file, the property and the line and column', async () => {
    const server = await testServer((_, res) => json(res, 200, { n: 'x' }));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
outputTransform: |
  {
    "n": $number(n)
  }
`),
    );
    await expect(runtime.execute('fn')).rejects.toMatchObject({
      code: 'EXPRESSION_EVALUATION',
      jsonataCode: 'D3030',
      location: { file: 'functions/fn.platform', path: 'outputTransform', line: 6 },
    });
  });
});

describe('solution settings', () => {
  test('settings.expressions sets the JSONata guardrails for every expression of the solution', async () => {
    const server = await testServer((_, res) => json(res, 200, { n: 50 }));
    const files = (maxSequence: number) => ({
      'solution.yaml': `name: s\nsettings:\n  expressions:\n    maxSequence: ${maxSequence}\n`,
      ...fn(
        `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\noutputTransform: '[1..n].($ * 2)'\n`,
      ),
    });
    await expect(runtimeFor(files(10)).execute('fn')).rejects.toMatchObject({
      code: 'EXPRESSION_EVALUATION',
      jsonataCode: 'D2015',
    });
    const ok = await runtimeFor(files(1000)).execute('fn');
    expect((ok as { output: number[] }).output).toHaveLength(50);
  });
});

describe('response formats', () => {
  // A real (minimal, one blank page) PDF, with the binary marker line PDF writers put in the header.
  const PDF = Buffer.concat([
    Buffer.from('%PDF-1.4\n%'),
    Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0x0a]),
    Buffer.from(
      '1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
    ),
    Buffer.from([0x00, 0xff, 0xfe, 0x80]),
  ]);

  test('pdf: the bytes as base64, never decoded as text; outputTransform sees data, contentType and inputs', async () => {
    const server = await testServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(PDF);
    });
    const raw = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/doc.pdf\nformat: pdf\n`),
    );
    const result = await raw.execute('fn');
    expect(result).toMatchObject({ output: { contentType: 'application/pdf', size: PDF.length } });
    expect(Buffer.from((result as { output: { data: string } }).output.data, 'base64').equals(PDF)).toBe(
      true,
    );

    const shaped = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/doc/{id}
format: pdf
parameters:
  id: { location: path, type: string, required: true }
outputTransform: '{ "id": inputs.id.value, "type": contentType, "head": $substring(data, 0, 8) }'
`),
    );
    expect(await shaped.execute('fn', { id: 'inv-1' })).toMatchObject({
      output: { id: 'inv-1', type: 'application/pdf', head: PDF.toString('base64').slice(0, 8) },
    });
  });

  test('xml: parsed to JSON with attributes kept', async () => {
    const server = await testServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0"?><feed><item id="1" lang="en">First</item><item id="2"><title>Second</title></item></feed>',
      );
    });
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/feed
format: xml
outputTransform: 'feed.item.{ "id": \`@_id\`, "text": $exists(\`#text\`) ? \`#text\` : title }'
`),
    );
    expect(await runtime.execute('fn')).toMatchObject({
      output: [
        { id: '1', text: 'First' },
        { id: '2', text: 'Second' },
      ],
    });
  });

  test('text: the body as a string', async () => {
    const server = await testServer((_, res) => res.end('plain ✓'));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/t\nformat: text\n`),
    );
    expect(await runtime.execute('fn')).toMatchObject({ output: 'plain ✓' });
  });

  test('json: an empty body and a 204 are null; HEAD has no body', async () => {
    const server = await testServer((req, res) => {
      res.writeHead(req.url === '/empty' ? 200 : 204);
      res.end();
    });
    for (const [method, path] of [
      ['GET', 'empty'],
      ['DELETE', 'gone'],
      ['HEAD', 'x'],
    ]) {
      const runtime = runtimeFor(
        fn(`provider: DATA_PROVIDER_REST\nmethod: ${method}\nurl: ${server.url}/${path}\n`),
      );
      expect(await runtime.execute('fn')).toMatchObject({ status: 'ok', output: null });
    }
  });

  test('json: a body that is not JSON is an error showing its first bytes', async () => {
    const server = await testServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Service maintenance</body></html>');
    });
    const runtime = runtimeFor(fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\n`));
    const error = await runtime.execute('fn').catch((e) => e);
    expect(error).toMatchObject({
      code: 'RESPONSE_FORMAT',
      format: 'JSON',
      excerpt: '<html><body>Service maintenance</body></html>',
    });
    expect(error.message).toContain("Set 'format' to match");
  });
});

describe('failures', () => {
  test('an error status is a REMOTE_ERROR whose serialised form carries no response body', async () => {
    const server = await testServer((_, res) => json(res, 404, { detail: 'private-body-text' }));
    const runtime = runtimeFor(fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/missing\n`));
    const error = await runtime.execute('fn').catch((e) => e);
    expect(error).toMatchObject({ code: 'REMOTE_ERROR', status: 404, statusText: 'Not Found' });
    expect(error.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.response.body).toEqual({ detail: 'private-body-text' });
    expect(JSON.stringify(error)).not.toContain('private-body-text');
  });

  test('headers that never come: TIMEOUT (headers), within the configured limit', async () => {
    const server = await testServer(() => {
      /* never answers */
    });
    const runtime = runtimeFor({
      'solution.yaml': 'name: s\nsettings:\n  http:\n    headersTimeoutMs: 100\n',
      ...fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/slow\n`),
    });
    // GET is idempotent: the timeout is retried twice before it is raised. The limit that stopped it
    // is the one solution.yaml set (100 ms), not the default, and the message says how to raise it.
    await expect(runtime.execute('fn')).rejects.toMatchObject({
      code: 'TIMEOUT',
      phase: 'headers',
      limitMs: 100,
      attempts: 3,
      message: expect.stringContaining('limit 100 ms; raise settings.http.headersTimeoutMs'),
    });
    expect(server.requests).toHaveLength(3);
  });

  test('a body that stalls: TIMEOUT (body)', async () => {
    const server = await testServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const runtime = runtimeFor(fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/stall\n`), {
      http: { bodyTimeoutMs: 100 },
    });
    await expect(runtime.execute('fn')).rejects.toMatchObject({ code: 'TIMEOUT', phase: 'body' });
  });

  test('a server that closes the socket mid-body: NETWORK_ERROR', async () => {
    const raw = createNetServer((socket) => {
      socket.once('data', () => {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"items":[1,2,',
        );
        setTimeout(() => socket.destroy(), 20);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => raw.close(() => resolve())));
    const port = (raw.address() as AddressInfo).port;
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://127.0.0.1:${port}/x\n`),
    );
    const error = await runtime.execute('fn').catch((e) => e);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR' });
    expect(error.message).toContain('closed before the response was complete');
  });

  test('a refused port: NETWORK_ERROR with ECONNREFUSED', async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://127.0.0.1:${port}/x\n`),
    );
    await expect(runtime.execute('fn')).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      causeCode: 'ECONNREFUSED',
    });
  });

  test('redirects are followed, up to the limit', async () => {
    const server = await testServer((req, res) => {
      if (req.url === '/old') res.writeHead(301, { location: '/new' }).end();
      else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else if (req.url.startsWith('/hop/'))
        res.writeHead(302, { location: `/hop/${Number(req.url.slice(5)) + 1}` }).end();
      else json(res, 200, { at: req.url });
    });
    const follows = runtimeFor(fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/old\n`));
    expect(await follows.execute('fn')).toMatchObject({ output: { at: '/new' } });
    const hops = runtimeFor(fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/hop/0\n`), {
      http: { maxRedirections: 3 },
    });
    await expect(hops.execute('fn')).rejects.toMatchObject({ code: 'REDIRECT_LIMIT' });
    expect(server.requests.filter((r) => r.url.startsWith('/hop/'))).toHaveLength(4);
    const loops = runtimeFor(fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/loop\n`));
    await expect(loops.execute('fn')).rejects.toMatchObject({ code: 'REDIRECT_LIMIT' });
  });

  test('an aborted execution: ABORTED', async () => {
    const server = await testServer(() => {
      /* never answers */
    });
    const runtime = runtimeFor(fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\n`));
    const controller = new AbortController();
    const pending = runtime.execute('fn', {}, {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });

  test('an unknown function: FUNCTION_NOT_FOUND with a suggestion', async () => {
    const runtime = runtimeFor({
      'functions/rest-get-items.platform':
        'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://127.0.0.1:9/\n',
    });
    await expect(runtime.execute('rest-get-itmes')).rejects.toMatchObject({
      code: 'FUNCTION_NOT_FOUND',
      message: "function 'rest-get-itmes' does not exist in this solution (did you mean 'rest-get-items'?)",
    });
  });
});

describe('events and credentials', () => {
  test('one correlation id through request, response and success events', async () => {
    const server = await testServer((_, res) => json(res, 200, [1]));
    const runtime = runtimeFor(fn(`provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\n`));
    const events: ExecutionEvent[] = [];
    runtime.on((e) => events.push(e));
    const result = await runtime.execute('fn');
    expect(events.map((e) => e.type)).toEqual(['request', 'response', 'succeeded']);
    expect(new Set(events.map((e) => e.correlationId))).toEqual(new Set([result.correlationId]));
  });

  test("without a credentials option, the solution's local store: a key never stored is CREDENTIAL_NOT_FOUND, nothing sent or created", async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const root = tempSolution(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
parameters:
  x-api-key: { location: header, type: secret, value: crm-key }
`),
    );
    const runtime = createRuntime(loadSolution(root), { clock: recordingClock() });
    onTestFinished(() => runtime.close());
    await expect(runtime.execute('fn')).rejects.toMatchObject({
      code: 'CREDENTIAL_NOT_FOUND',
      message: expect.stringContaining('restfn credentials set crm-key'),
    });
    expect(server.requests).toHaveLength(0);
    // Looking a key up creates no state folder (nor a key file).
    expect(existsSync(join(root, '.restfn'))).toBe(false);
  });

  test('an unknown parameter is refused by the library as by the CLI, with the closest name', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
parameters:
  page: { location: query, type: number }
`),
    );
    await expect(runtime.execute('fn', { pgae: 2 })).rejects.toMatchObject({
      code: 'PARAMETER_UNKNOWN',
      message: "function 'fn' has no parameter 'pgae' (did you mean 'page'?): its parameters are 'page'",
    });
    expect(server.requests).toHaveLength(0);
  });

  test('credential values reach the service but are masked in events', async () => {
    const SECRET = 'Zq8mK2pLx9Rv4Tn7';
    const server = await testServer((_, res) => json(res, 200, {}));
    // Stands in for the credential store of the authentication issue: maps a key to a value.
    const credentials = {
      apply: async (r: {
        parameter: string;
        key: string;
        location: 'header' | 'query' | 'path' | 'body' | 'output';
      }) => ({
        values: [
          { name: r.parameter, location: r.location, value: r.key === 'crm-key' ? SECRET : 'unknown' },
        ],
      }),
    };
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
parameters:
  x-api-key: { location: header, type: secret, value: crm-key }
  token: { location: query, type: secret, value: crm-key }
`),
      { credentials },
    );
    const events: ExecutionEvent[] = [];
    runtime.on((e) => events.push(e));
    await runtime.execute('fn');
    expect(server.requests[0]!.headers['x-api-key']).toBe(SECRET);
    expect(server.requests[0]!.url).toBe(`/x?token=${SECRET}`);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(events[0]).toMatchObject({ url: `${server.url}/x?token=***`, headers: { 'x-api-key': '***' } });
  });
});

describe('continuation pages', () => {
  test('a 401 on a later page whose continuation does not repeat a credential says so', async () => {
    const server = await testServer((req, res) => {
      if (req.headers['x-api-key'] !== 'k-123') return json(res, 401, { error: 'no key' });
      json(res, 200, { items: [1], next: `http://${req.headers.host}/x?page=2` });
    });
    const runtime = runtimeFor(
      fn(`provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
parameters:
  x-api-key: { location: header, type: secret, value: api-key }
continuation:
  when: =$exists(@ctx.response.body.next)
  url: =@ctx.response.body.next
`),
      {
        credentials: {
          async apply(request) {
            return { values: [{ name: request.parameter, location: request.location, value: 'k-123' }] };
          },
        },
      },
    );
    const pages: number[] = [];
    await expect(runtime.pages('fn', {}, {}, (_r, page) => void pages.push(page))).rejects.toMatchObject({
      code: 'REMOTE_ERROR',
      message: expect.stringContaining(
        "page 2 was sent without 'x-api-key': continuation.parameters replace the function's, so repeat it there",
      ),
    });
    expect(pages).toEqual([1]);
  });
});
