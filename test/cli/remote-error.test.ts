import { createServer } from 'node:net';
import { describe, expect, test } from 'vitest';
import { bodyExcerpt } from '../../src/runtime/excerpt.js';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

const API_KEY = 'ak-Rm4Tq8Zx2Lp7Wn3Vb9';
const ENV = { RESTFN_CREDENTIALS_KEY: Buffer.alloc(32, 3).toString('base64') };

/** A solution whose function sends the stored API key; the credential is stored through the CLI. */
async function solutionWithKey(files: Record<string, string>) {
  const root = tempSolution({ 'solution.yaml': 'name: r\n', ...files });
  const set = await runCli(['credentials', 'set', 'api-key', '--kind', 'secret'], {
    cwd: root,
    env: ENV,
    input: API_KEY,
  });
  expect(set.code, set.stderr).toBe(0);
  return root;
}

const FUNCTION = (url: string, extra = '') => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/items
parameters:
  x-api-key: { location: header, type: secret, value: api-key }
${extra}`;

describe('REMOTE_ERROR shows what the service said', () => {
  test("the handler's title, description and details, and a masked 2 KB excerpt of the body", async () => {
    const server = await testServer((_, res) =>
      json(res, 500, { message: 'stock service down', echo: API_KEY, pad: 'x'.repeat(5000) }),
    );
    const root = await solutionWithKey({
      'functions/rest-get-items.platform': FUNCTION(
        server.url,
        `error:
  - when: =@ctx.response.status >= 500
    title: Items unavailable
    description: The stock service failed
    details: =@ctx.response.body.message & " (" & @ctx.response.body.echo & ")"
`,
      ),
    });
    const r = await runCli(['run', 'rest-get-items'], { cwd: root, env: ENV });
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe(
      `restfn: error REMOTE_ERROR: GET ${server.url}/items answered 500 Internal Server Error (error handler 1 matched)`,
    );
    expect(lines.slice(1, 4)).toEqual([
      '  title: Items unavailable',
      '  description: The stock service failed',
      '  details: stock service down (***)',
    ]);
    const body = lines[4]!;
    expect(body).toMatch(
      /^ {2}response body \(credentials masked, 2 KB at most\): \{"message":"stock service down","echo":"\*\*\*","pad":"x+\.\.\. \(\d+ bytes in all\)$/,
    );
    expect(body.length).toBeLessThan(2048 + 120);
    expect(r.stderr + r.stdout).not.toContain(API_KEY);
  });

  test('--verbose prints the response body, masked and bounded', async () => {
    const server = await testServer((_, res) => json(res, 200, { echo: API_KEY, pad: 'y'.repeat(100_000) }));
    const root = await solutionWithKey({ 'functions/rest-get-items.platform': FUNCTION(server.url) });
    const r = await runCli(['run', 'rest-get-items', '--verbose'], { cwd: root, env: ENV });
    expect(r.code, r.stderr).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.startsWith('< {'));
    expect(line).toMatch(/^< \{"echo":"\*\*\*","pad":"y+\.\.\. \(\d+ bytes in all\)$/);
    expect(line!.length).toBeLessThan(64 * 1024 + 100);
    expect(r.stderr).not.toContain(API_KEY);
    expect(JSON.parse(r.stdout).echo).toBe(API_KEY); // the output itself is the caller's
  });

  test('"Service unreachable" only when no answer came: not for a body in the wrong format', async () => {
    const server = await testServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items": [1, 2');
    });
    const root = tempSolution({
      'functions/rest-bad-json.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\n`,
      'functions/rest-closed.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: http://127.0.0.1:${await closedPort()}/items\n`,
    });
    const bad = await runCli(['run', 'rest-bad-json'], { cwd: root });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('restfn: alert [toast] Unexpected response:');
    expect(bad.stderr).toContain('error RESPONSE_FORMAT');
    expect(bad.stderr).not.toContain('unreachable');
    const closed = await runCli(['run', 'rest-closed'], { cwd: root });
    expect(closed.code).toBe(1);
    expect(closed.stderr).toContain('restfn: alert [toast] Service unreachable:');
    expect(closed.stderr).toContain('error NETWORK_ERROR');
  });
});

describe('bodyExcerpt', () => {
  const SECRET = 's3cr3t-value-42';

  test('masks before it cuts: a secret across the limit leaves no part of itself', () => {
    const text = `${'a'.repeat(95)}${SECRET}${'b'.repeat(50)}`;
    const excerpt = bodyExcerpt(Buffer.from(text), 'text/plain', [SECRET], 100);
    expect(excerpt).toBe(`${'a'.repeat(95)}***bb... (${text.length} bytes in all)`);
    expect(excerpt).not.toContain('s3c');
  });

  test('a short body comes back whole, masked; binary content is a placeholder', () => {
    expect(bodyExcerpt(Buffer.from(`{"k":"${SECRET}"}`), 'application/json', [SECRET], 100)).toBe(
      '{"k":"***"}',
    );
    expect(bodyExcerpt(Buffer.from([0x89, 0x50, 0, 1]), 'image/png', [], 100)).toBe('<4 bytes, image/png>');
    expect(bodyExcerpt(Buffer.from('plain'), undefined, [], 100)).toBe('plain');
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
