import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { CredentialProvider, CredentialRequest } from '../../src/auth/credential-provider.js';
import { StoreCredentialProvider } from '../../src/auth/provider.js';
import { CredentialStore } from '../../src/auth/store.js';
import type { ExecutionEvent } from '../../src/runtime/events.js';
import { maskText } from '../../src/runtime/mask.js';
import { recordingClock } from '../helpers/clock.js';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { runtimeFor } from '../helpers/runtime.js';
import { tempSolution } from '../helpers/temp-solution.js';

/** Values chosen to break naive masking: JSON escapes, form and percent encoding, unicode. */
const HARD = 'Qx"7\\k&m+Ü日 =/9z';
/** Headers carry Latin-1 only: the header credential keeps the JSON- and URL-hostile characters. */
const HARD_HEADER = 'Hd"4\\p&w+Rt=/ 8q';
const SHORT = '7';
const SHORT2 = '&=';

/** The strings of every event, field by field (JSON.stringify of events would escape them once more). */
function eventTexts(events: readonly ExecutionEvent[]): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') return void out.push(v);
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      walk(x);
    }
  };
  walk(events);
  return out;
}

function expectNoEncoding(texts: readonly string[], value: string): void {
  for (const form of encodings(value)) {
    for (const text of texts)
      expect(text.includes(form), `'${text}' holds ${JSON.stringify(form)}`).toBe(false);
  }
}

/** Credentials by key; OAuth keys give a new token on every refresh. */
function provider(values: Record<string, string>): CredentialProvider & { refreshes: number } {
  const p = {
    refreshes: 0,
    async apply(r: CredentialRequest) {
      if (r.kind === 'oauth') {
        if (r.refresh) p.refreshes++;
        const token = `${values[r.key]}-${p.refreshes}`;
        return {
          values: [
            r.location === 'header'
              ? { name: 'authorization', location: 'header' as const, value: `Bearer ${token}` }
              : { name: r.parameter, location: r.location, value: token },
          ],
        };
      }
      const value = values[r.key];
      if (value === undefined) throw new Error(`no credential ${r.key}`);
      if (r.key === 'basic') {
        const basic = `Basic ${Buffer.from(`ada:${value}`).toString('base64')}`;
        return { values: [{ name: 'authorization', location: 'header' as const, value: basic }] };
      }
      return { values: [{ name: r.parameter, location: r.location, value }] };
    },
  };
  return p;
}

function recorder(runtime: { on(l: (e: ExecutionEvent) => void): unknown }): ExecutionEvent[] {
  const events: ExecutionEvent[] = [];
  runtime.on((e) => events.push(e));
  return events;
}

describe('item 2: credential values are masked in every encoding', () => {
  test('query, body and header credentials with JSON- and URL-hostile characters never show in events', async () => {
    const server = await testServer((req, res) =>
      // The service echoes the credential back in a response header (Latin-1 only there).
      json(res, 200, { ok: true }, { 'x-echo': String(req.headers['x-api-key']) }),
    );
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/items
parameters:
  token: { location: query, type: secret, value: q-key }
  apiKey: { location: body, type: secret, value: b-key }
  x-api-key: { location: header, type: secret, value: h-key }
  note: { location: body, value: plain }
`,
      },
      { credentials: provider({ 'q-key': HARD, 'b-key': HARD, 'h-key': HARD_HEADER }) },
    );
    const events = recorder(runtime);
    await runtime.execute('fn');

    // The real values arrived.
    const sent = server.requests[0]!;
    expect(new URL(sent.url, server.url).searchParams.get('token')).toBe(HARD);
    expect(JSON.parse(sent.body)).toEqual({ apiKey: HARD, note: 'plain' });
    expect(sent.headers['x-api-key']).toBe(HARD_HEADER);

    const request = events.find((e) => e.type === 'request')!;
    expect(request).toMatchObject({ headers: { 'x-api-key': '***' } });
    expect(JSON.parse((request as { body: string }).body)).toEqual({ apiKey: '***', note: 'plain' });
    expect(new URL((request as { url: string }).url).searchParams.get('token')).toBe('***');
    expect(events.find((e) => e.type === 'response')).toMatchObject({ headers: { 'x-echo': '***' } });
    expectNoEncoding(eventTexts(events), HARD);
    expectNoEncoding(eventTexts(events), HARD_HEADER);
  });

  test('a 1- or 2-character credential is masked as the whole field it fills', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/items/{id}
parameters:
  id: { location: path, required: true, value: "i-7" }
  sig: { location: query, type: secret, value: one }
  pin: { location: body, type: secret, value: two }
  x-key: { location: header, type: secret, value: one }
  count: { location: body, type: number, value: 17 }
`,
      },
      { credentials: provider({ one: SHORT, two: SHORT2 }) },
    );
    const events = recorder(runtime);
    await runtime.execute('fn');
    expect(server.requests[0]!.url).toBe('/items/i-7?sig=7');
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ pin: '&=', count: 17 });

    const request = events.find((e) => e.type === 'request') as Extract<ExecutionEvent, { type: 'request' }>;
    expect(new URL(request.url).searchParams.get('sig')).toBe('***');
    expect(new URL(request.url).pathname).toBe('/items/i-7');
    expect(request.headers['x-key']).toBe('***');
    // The short value is hidden where it is bound; unrelated fields stay readable.
    expect(JSON.parse(request.body!)).toEqual({ pin: '***', count: 17 });
  });

  test('basic auth: neither the password nor user:password shows in any encoding', async () => {
    const password = 'pa"ss\\wo&rd+';
    const server = await testServer((req, res) =>
      json(res, 200, {}, { 'x-seen': String(req.headers.authorization) }),
    );
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
parameters:
  basicAuth: { location: header, type: secret, value: basic }
`,
      },
      { credentials: provider({ basic: password }) },
    );
    const events = recorder(runtime);
    await runtime.execute('fn');
    expect(server.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`ada:${password}`).toString('base64')}`,
    );
    expectNoEncoding(eventTexts(events), `ada:${password}`);
    expectNoEncoding(eventTexts(events), password);
  });

  test('maskText hides base64 of a value embedded at any offset, and JSON-escaped and form-encoded forms', () => {
    const secret = 'k"e\\y&+Ü';
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      const b64 = Buffer.from(`${prefix}${secret}tail`).toString('base64');
      const masked = maskText(`x ${b64} y`, [secret]);
      // At most the characters shared with the neighbouring bytes survive.
      expect(masked).toContain('***');
      expect(masked.length).toBeLessThan(b64.length);
    }
    const json = JSON.stringify({ v: `pre${secret}post` });
    expect(maskText(json, [secret])).toBe('{"v":"pre***post"}');
    const form = new URLSearchParams({ v: secret }).toString();
    expect(maskText(form, [secret])).toBe('v=***');
  });

  test('maskText hides the forms services echo: \\/ escapes, JSON inside JSON, HTML entities, $encodeUrl', () => {
    const secret = 'Zm9v/c2V"j\\cmV<0>+&';
    const echoed = [
      JSON.stringify(secret).replaceAll('/', '\\/'),
      JSON.stringify(JSON.stringify({ field: secret })),
      `<p>${secret.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')}</p>`,
      `https://x.test/?q=${encodeURI(secret)}`,
    ];
    for (const text of echoed) {
      const masked = maskText(text, [secret]);
      expect(masked, text).toContain('***');
      expect(masked, text).not.toContain('c2V');
    }
  });

  test('a response that is not JSON and quotes the credential: the error neither quotes it nor holds raw control characters', async () => {
    const server = await testServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${req.headers['x-api-key']}\u001b]0;PWNED\u0007`);
    });
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\nparameters:\n  x-api-key: { location: header, type: secret, value: k }\n`,
      },
      { credentials: provider({ k: HARD_HEADER }) },
    );
    const error = (await runtime.execute('fn').catch((e) => e)) as Error & { code: string };
    expect(error.code).toBe('RESPONSE_FORMAT');
    expectNoEncoding([error.message], HARD_HEADER);
    expect([...error.message].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
  });

  test('an outputTransform that fails on an echoed credential has it masked in its error', async () => {
    const server = await testServer((req, res) => json(res, 200, { echo: req.headers['x-api-key'] }));
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\noutputTransform: $number(echo)\nparameters:\n  x-api-key: { location: header, type: secret, value: k }\n`,
      },
      { credentials: provider({ k: 'tok9SECRETzzzz' }) },
    );
    const error = (await runtime.execute('fn').catch((e) => e)) as Error & { code: string };
    expect(error.code).toBe('EXPRESSION_EVALUATION');
    expect(error.message).toContain('***');
    expect(error.message).not.toContain('tok9SECRETzzzz');
  });
});

describe('item 3: body credentials with an inputTransform', () => {
  test('the transform sees the credential value, never its key; the trace masks it', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/login
parameters:
  apiKey: { location: body, type: secret, value: crm-body-key }
  x-api-key: { location: header, type: secret, value: crm-header-key }
  q: { location: body, value: hello }
inputTransform: '={"auth": {"key": $.apiKey, "again": $.inputs.apiKey.value}, "q": $.q, "all": $}'
`,
      },
      { credentials: provider({ 'crm-body-key': HARD, 'crm-header-key': HARD_HEADER }) },
    );
    const events = recorder(runtime);
    await runtime.execute('fn');
    const sent = server.requests[0]!;
    expect(JSON.parse(sent.body)).toEqual({
      auth: { key: HARD, again: HARD },
      q: 'hello',
      // A credential placed elsewhere (a header) is not part of the transform's input.
      all: { apiKey: HARD, q: 'hello' },
    });
    expect(sent.body).not.toContain('crm-body-key');
    expect(sent.body).not.toContain('crm-header-key');
    expect(sent.headers['x-api-key']).toBe(HARD_HEADER);

    const request = events.find((e) => e.type === 'request') as Extract<ExecutionEvent, { type: 'request' }>;
    expect(JSON.parse(request.body!)).toEqual({
      auth: { key: '***', again: '***' },
      q: 'hello',
      all: { apiKey: '***', q: 'hello' },
    });
    expectNoEncoding(eventTexts(events), HARD);
  });

  test('a transform error that quotes the credential (JSONata does) has it masked, causes included', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const secret = 'not-a-number-Zq8mK2';
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/x
parameters:
  apiKey: { location: body, type: secret, value: k }
inputTransform: '={"n": $number($.apiKey)}'
`,
      },
      { credentials: provider({ k: secret }) },
    );
    const error = await runtime.execute('fn').catch((e) => e);
    expect(error).toMatchObject({ code: 'EXPRESSION_EVALUATION' });
    expect(error.message).toContain('Unable to cast value to a number: "***"');
    for (let e = error; e; e = e.cause)
      expect(JSON.stringify({ ...e, message: e.message })).not.toContain(secret);
    expect(server.requests).toHaveLength(0);
  });

  test('an OAuth token in the body is the refreshed one on the retry after a 401', async () => {
    const server = await testServer((req, res) =>
      json(res, JSON.parse(req.body).token === 'tok-1' ? 200 : 401, {}),
    );
    const credentials = provider({ crm: 'tok' });
    const runtime = runtimeFor(
      {
        'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/x
parameters:
  accessToken: { location: body, type: crm.oauth, value: crm }
inputTransform: '={"token": $.accessToken}'
`,
      },
      { credentials },
    );
    await runtime.execute('fn');
    expect(server.requests.map((r) => JSON.parse(r.body).token)).toEqual(['tok-0', 'tok-1']);
  });
});

describe('item 4: one rule for sensitive headers, in traces and on redirects', () => {
  test('a plain header named like a credential is masked and not carried to another origin', async () => {
    const other = await testServer((_, res) => json(res, 200, { stolen: true }));
    const server = await testServer((req, res) => {
      if (req.url === '/away') res.writeHead(302, { location: `${other.url}/collect` }).end();
      else if (req.url === '/old') res.writeHead(302, { location: '/new' }).end();
      else json(res, 200, { token: req.headers['x-token'] });
    });
    const fn = (path: string, header: string) => ({
      'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}${path}\nparameters:\n  ${header}: { location: header, value: plain-value-1 }\n`,
    });

    const away = runtimeFor(fn('/away', 'x-token'));
    const events = recorder(away);
    const error = await away.execute('fn').catch((e) => e);
    expect(error).toMatchObject({ code: 'REDIRECT_LIMIT' });
    expect(other.requests).toHaveLength(0);
    expect(events.find((e) => e.type === 'request')).toMatchObject({ headers: { 'x-token': '***' } });

    // Within the origin it is still followed, header and all.
    const same = runtimeFor(fn('/old', 'x-token'));
    expect(await same.execute('fn')).toMatchObject({ output: { token: 'plain-value-1' } });

    // A header that is not sensitive by the same rule follows the redirect as before.
    const plain = runtimeFor(fn('/away', 'x-request-id'));
    expect(await plain.execute('fn')).toMatchObject({ output: { stolen: true } });
    expect(other.requests[0]!.headers['x-request-id']).toBe('plain-value-1');
  });
});

describe('item 5: header values and names with control characters are refused before sending', () => {
  const fn = (url: string) => ({
    'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/items
parameters:
  x-note: { location: header }
  x-api-key: { location: header, type: secret, value: k }
`,
  });

  test.each([
    ['CR/LF', 'a\r\nx-injected: 1'],
    ['a NUL', 'a\u0000b'],
    ['DEL', 'a\u007fb'],
    ['a character beyond Latin-1', 'caf\u65e5'],
  ])('a caller value with %s: INVALID_HEADER, no request, no retry', async (_, value) => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(fn(server.url), { credentials: provider({ k: 'fine' }) });
    const events = recorder(runtime);
    const error = await runtime.execute('fn', { 'x-note': value }).catch((e) => e);
    expect(error).toMatchObject({ code: 'INVALID_HEADER', header: 'x-note' });
    expect(error.message).toContain("'x-note'");
    expect(error.message).not.toContain(value);
    expect(server.requests).toHaveLength(0);
    expect(events.filter((e) => e.type === 'retried' || e.type === 'request')).toEqual([]);
  });

  test('a stored credential with a line break: CREDENTIAL_VALUE, the value never in the message', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor(fn(server.url), { credentials: provider({ k: 'Zq8mK2pL\n' }) });
    const error = await runtime.execute('fn', { 'x-note': 'ok' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'CREDENTIAL_VALUE', credential: 'k' });
    expect(error.message).not.toContain('Zq8mK2pL');
    expect(server.requests).toHaveLength(0);
  });

  test('a header name that is not an HTTP token is refused at run time too', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor({
      'functions/fn.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\nparameters:\n  "x-a\\r\\nx-b": { location: header, value: v }\n`,
    });
    const error = await runtime.execute('fn').catch((e) => e);
    expect(error).toMatchObject({ code: 'INVALID_HEADER' });
    expect(error.message).toContain('x-a\\r\\nx-b');
    expect(error.message).not.toMatch(/[\r\n]/);
    expect(server.requests).toHaveLength(0);
  });

  test('query and path values cannot inject: sent percent-encoded; a url expression with control characters is refused', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const runtime = runtimeFor({
      'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items/{id}
parameters:
  id: { location: path, required: true }
  q: { location: query }
`,
      'functions/by-expression.platform': `provider: DATA_PROVIDER_REST
method: GET
url: '="${server.url}/items/" & $.parameters.id'
parameters:
  id: { location: path }
`,
    });
    await runtime.execute('fn', { id: 'a b\r\nHost: x/?#', q: 'v\r\nX-Injected: 1&z=1' });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.url).toBe(
      '/items/a%20b%0D%0AHost%3A%20x%2F%3F%23?q=v%0D%0AX-Injected%3A+1%26z%3D1',
    );
    expect(server.requests[0]!.headers['x-injected']).toBeUndefined();

    const error = await runtime.execute('by-expression', { id: 'a\r\nb' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'INVALID_URL' });
    expect(error.message).not.toMatch(/[\r\n]/);
    expect(server.requests).toHaveLength(1);
  });
});

test('through the real encrypted store: a stored secret and basic password are sent, and masked everywhere they are shown', async () => {
  const folder = tempSolution();
  const store = new CredentialStore(join(folder, 'credentials.db'), randomBytes(32));
  store.set('api', { kind: 'secret', value: HARD_HEADER });
  store.set('basic', { kind: 'basic', username: 'ada', password: HARD });
  const server = await testServer((req, res) =>
    json(res, 200, { echo: req.headers['x-api-key'], auth: req.headers.authorization }),
  );
  const runtime = runtimeFor(
    {
      'functions/fn.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
parameters:
  x-api-key: { location: header, type: secret, value: api }
  basicAuth: { location: header, type: secret, value: basic }
outputTransform: '{ "echo": echo }'
`,
    },
    { credentials: new StoreCredentialProvider(() => store, recordingClock()) },
  );
  const events = recorder(runtime);
  const result = await runtime.execute('fn');
  store.close();
  expect(server.requests[0]!.headers['x-api-key']).toBe(HARD_HEADER);
  expect(server.requests[0]!.headers.authorization).toBe(
    `Basic ${Buffer.from(`ada:${HARD}`).toString('base64')}`,
  );
  expectNoEncoding(eventTexts(events), HARD);
  expectNoEncoding(eventTexts(events), HARD_HEADER);
  // The stored bytes hold neither value in any encoding (encrypted at rest).
  const stored = readFileSync(join(folder, 'credentials.db')).toString('latin1');
  for (const form of encodings(HARD)) expect(stored).not.toContain(form);
  for (const form of encodings(HARD_HEADER)) expect(stored).not.toContain(form);
  expect(result.status).toBe('ok');
});
