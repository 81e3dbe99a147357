import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

const BODY_SECRET = 'Qx"7\\k&m+Ü日 =/9z';
const QUERY_SECRET = 'qs\\"+&%20Zé';
const HEADER_SECRET = 'Hd"4\\p&w+Rt=/ 8q';
const SHORT = '&';

describe('restfn run --verbose with stored credentials', () => {
  test('no encoding of a credential reaches the output; short ones are masked as their field', async () => {
    const server = await testServer((req, res) =>
      json(res, 200, { ok: true }, { 'x-echo': String(req.headers['x-api-key']) }),
    );
    const root = tempSolution({
      'solution.yaml': 'name: t\n',
      'functions/rest-post.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/items
parameters:
  token: { location: query, type: secret, value: q-key }
  sig: { location: query, type: secret, value: short-key }
  x-api-key: { location: header, type: secret, value: h-key }
  apiKey: { location: body, type: secret, value: b-key }
  name: { location: body, value: ada }
inputTransform: '={"credentials": {"key": $.apiKey}, "name": $.name}'
`,
    });
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    const store = async (key: string, value: string) => {
      const r = await runCli(['credentials', 'set', key, '--kind', 'secret'], {
        cwd: root,
        env,
        input: value,
      });
      expect(r.code, r.stderr).toBe(0);
    };
    await store('q-key', QUERY_SECRET);
    await store('short-key', SHORT);
    await store('h-key', HEADER_SECRET);
    await store('b-key', BODY_SECRET);

    const r = await runCli(['run', 'rest-post', '--verbose'], { cwd: root, env });
    expect(r.code, r.stderr).toBe(0);
    const sent = server.requests[0]!;
    expect(JSON.parse(sent.body)).toEqual({ credentials: { key: BODY_SECRET }, name: 'ada' });
    const query = new URL(sent.url, server.url).searchParams;
    expect([query.get('token'), query.get('sig')]).toEqual([QUERY_SECRET, SHORT]);

    const output = r.stdout + r.stderr;
    for (const secret of [BODY_SECRET, QUERY_SECRET, HEADER_SECRET]) {
      for (const form of encodings(secret)) expect(output).not.toContain(form);
    }
    expect(r.stderr).toContain(`> POST ${server.url}/items?token=***&sig=***`);
    expect(r.stderr).toContain('> x-api-key: ***');
    expect(r.stderr).toContain('> {"credentials":{"key":"***"},"name":"ada"}');
    expect(r.stderr).toContain('< x-echo: ***');
  });
});

describe('restfn run refuses headers HTTP cannot carry', () => {
  const fn = (url: string) => ({
    'functions/rest-note.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${url}/notes
parameters:
  x-note: { location: header }
  text: { location: body }
`,
  });

  test('a CR/LF header value: exit 2, INVALID_HEADER, nothing sent, no retries, nothing raw on stderr', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const root = tempSolution(fn(server.url));
    const r = await runCli(
      ['run', 'rest-note', '-p', 'x-note=a\r\nx-injected: 1', '-p', 'text=t', '--verbose'],
      { cwd: root },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('restfn: error INVALID_HEADER:');
    expect(r.stderr).toContain("header 'x-note'");
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).not.toContain('x-injected');
    expect(r.stderr).not.toMatch(/retry|NETWORK_ERROR/i);
    expect(server.requests).toHaveLength(0);
  });

  test('the trace escapes control characters a value may hold (C1, line separators)', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const root = tempSolution(fn(server.url));
    const r = await runCli(
      ['run', 'rest-note', '-p', 'x-note=a\u009b31mb', '-p', 'text=line\u2028next', '--verbose'],
      { cwd: root },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]!.headers['x-note']).toBe('a\u009b31mb');
    expect(r.stderr).toContain('> x-note: a\\u009b31mb');
    expect(r.stderr).toContain('> {"text":"line\\u2028next"}');
    expect(r.stderr).not.toMatch(/[\u009b\u2028]/);
  });
});
