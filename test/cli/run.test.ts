import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

const GET_ITEM = (url: string) => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/items/{id}
parameters:
  id: { location: path, type: string, required: true }
  Authorization: { location: header, type: string }
  page: { location: query, type: int }
outputTransform: '{ "id": id, "name": name }'
`;

describe('restfn run', () => {
  test('stdout is the output as JSON and nothing else; -p and --params set parameters', async () => {
    const server = await testServer((req, res) =>
      json(res, 200, { id: req.url.split(/[/?]/)[2], name: 'Ada', extra: 1 }),
    );
    const root = tempSolution({ 'functions/rest-get-item.platform': GET_ITEM(server.url) });
    const r = await runCli(['run', 'rest-get-item', '-p', 'id=i-7', '--params', '{"page": 2}'], {
      cwd: root,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'i-7', name: 'Ada' });
    expect(r.stderr).toBe('');
    expect(server.requests[0]!.url).toBe('/items/i-7?page=2');
  });

  test('--verbose traces to stderr with credentials masked', async () => {
    const server = await testServer((_, res) => json(res, 200, { id: 'x', name: 'n' }));
    const root = tempSolution({ 'functions/rest-get-item.platform': GET_ITEM(server.url) });
    const r = await runCli(
      ['run', 'rest-get-item', '-p', 'id=x', '-p', 'Authorization=Bearer sekret-token-123', '--verbose'],
      { cwd: root },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`> GET ${server.url}/items/x`);
    expect(r.stderr).toContain('> authorization: ***');
    expect(r.stderr).toMatch(/< 200 \(\d+ ms\)/);
    expect(r.stderr + r.stdout).not.toContain('sekret-token-123');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sekret-token-123');
    expect(JSON.parse(r.stdout)).toEqual({ id: 'x', name: 'n' });
  });

  test('exit codes: 1 remote error, 2 usage, 3 invalid definition, 4 credentials', async () => {
    const server = await testServer((_, res) => json(res, 500, { error: 'boom' }));
    const root = tempSolution({
      'functions/rest-get-item.platform': GET_ITEM(server.url),
      'functions/rest-broken.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/{id}\n`,
      'functions/rest-secret.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/s\nparameters:\n  x-api-key: { location: header, type: secret, value: k }\n`,
    });
    const remote = await runCli(['run', 'rest-get-item', '-p', 'id=1'], { cwd: root });
    expect(remote.code).toBe(1);
    expect(remote.stdout).toBe('');
    expect(remote.stderr).toContain('error REMOTE_ERROR');
    expect(remote.stderr).toContain('answered 500 Internal Server Error');

    const missing = await runCli(['run', 'rest-get-item'], { cwd: root });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('PARAMETER_REQUIRED');
    const unknown = await runCli(['run', 'rest-get-iten', '-p', 'id=1'], { cwd: root });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("did you mean 'rest-get-item'");
    const badPair = await runCli(['run', 'rest-get-item', '-p', 'id'], { cwd: root });
    expect(badPair.code).toBe(2);

    const invalid = await runCli(['run', 'rest-broken'], { cwd: root });
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain('URL_PLACEHOLDER_UNDECLARED');

    const credentials = await runCli(['run', 'rest-secret'], { cwd: root });
    expect(credentials.code).toBe(4);
    expect(credentials.stderr).toContain('CREDENTIAL_NOT_FOUND');
    expect(server.requests).toHaveLength(1);
  });

  test('alerts are printed on stderr', async () => {
    const server = await testServer((_, res) => json(res, 403, {}));
    const root = tempSolution({
      'functions/rest-locked.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/locked
error:
  - when: =@ctx.response.status = 403
    title: Not allowed
    alert:
      title: Access denied
      description: Ask an administrator.
      presentAs: modal
`,
    });
    const r = await runCli(['run', 'rest-locked'], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('restfn: alert [modal] Access denied: Ask an administrator.');
    expect(r.stderr).toContain('(error handler 1 matched)');
  });

  test('error-table operations are written by run too', async () => {
    const server = await testServer((_, res) => json(res, 409, { conflict: true }));
    const root = tempSolution({
      'functions/rest-save.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/save
error:
  - when: =@ctx.response.status = 409
    operations:
      - type: operation.upsert-merge
        records: '{ "id": "last", "status": @ctx.response.status }'
`,
    });
    expect((await runCli(['run', 'rest-save'], { cwd: root })).code).toBe(1);
    const rows = await runCli(['query', 'SELECT data FROM [rest-save_error]'], { cwd: root });
    expect(JSON.parse(rows.stdout)).toEqual([{ data: { id: 'last', status: 409 } }]);
  });

  test('a skipped function prints null and says why on stderr', async () => {
    const root = tempSolution({
      'functions/rest-never.platform':
        'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://127.0.0.1:9/\nwhen: false\n',
    });
    const r = await runCli(['run', 'rest-never'], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('null\n');
    expect(r.stderr).toBe('restfn: rest-never skipped: when is false\n');
  });

  test('--user-* set @ctx.user; a failure shaped by errorTransform prints its output and exits 1', async () => {
    const server = await testServer((req, res) =>
      json(res, 404, { message: `no item for ${req.headers['x-user']}` }),
    );
    const root = tempSolution({
      'functions/rest-get-mine.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/mine
parameters:
  X-User: { location: header, type: string, value: =@ctx.user.email }
errorTransform: '{ "problem": message, "status": $$.status }'
`,
    });
    const r = await runCli(['run', 'rest-get-mine', '--user-email', 'ada@example.test'], { cwd: root });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ problem: 'no item for ada@example.test', status: 404 });
    expect(r.stderr).toContain('DEPRECATED_KEY');
  });

  test('a paged function gives page 1 and a note that more follow, without asking for them', async () => {
    const server = await testServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      json(res, 200, { items: page < 3 ? [{ id: `p${page}` }] : [], more: page < 2 });
    });
    const root = tempSolution({
      'functions/rest-get-tickets.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/tickets
parameters:
  page: { location: query, type: int, value: 1 }
outputTransform: $
continuation:
  when: =@ctx.output.more
  parameters:
    page: { location: query, type: int, value: =$number(@ctx.parameters.page) + 1 }
`,
    });
    const first = await runCli(['run', 'rest-get-tickets'], { cwd: root });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ items: [{ id: 'p1' }], more: true });
    expect(first.stderr).toBe(
      "restfn: rest-get-tickets gave page 1 only; the service has more pages (continuation.when =@ctx.output.more held): 'restfn sync' fills a datasource using rest-get-tickets with all of them\n",
    );
    // Only page 1 was asked for.
    expect(server.requests.map((r) => r.url)).toEqual(['/tickets?page=1']);
    // The last page says nothing.
    const last = await runCli(['run', 'rest-get-tickets', '-p', 'page=2'], { cwd: root });
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).toBe('');
    const help = await runCli(['run', '--help']);
    expect(help.stdout).toContain('a note when more follow');
  });
});
