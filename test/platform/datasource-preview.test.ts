import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { bytesOf, type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';

const SECRET = 'ds-live-Q8vT3mZ7xK2pL9wR';

/** A service with two pages of items behind an API key; it counts what it was sent. */
async function itemService() {
  const received: string[] = [];
  const service = await testServer((req, res) => {
    received.push(`${req.method} ${req.url} ${req.headers['x-api-key'] ?? '-'}`);
    const page = Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? '1');
    json(res, 200, {
      items: [
        { id: `i${page}a`, name: `item ${page}a`, price: page * 10 },
        { id: `i${page}b`, name: `item ${page}b`, price: page * 10 + 1 },
      ],
      next: page < 2 ? page + 1 : null,
    });
  });
  return { service, received };
}

const ITEMS = (url: string, queries = '') => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/items
parameters:
  page: { location: query, type: int, value: 1 }
  x-api-key: { location: header, type: secret, value: api-key }
${queries}outputTransform: items
continuation:
  when: =@ctx.response.body.next != null
  parameters:
    page: { location: query, type: int, value: =@ctx.response.body.next }
    x-api-key: { location: header, type: secret, value: api-key }
`;

const datasource = (query: string) => `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: items
      function: rest-get-items
  query: ${JSON.stringify(query)}
`;

/** Publishes `files` as `solution` and stores its API key. */
async function publish(platform: PlatformProcess, solution: string, files: Record<string, string>) {
  const put = await platform.api('PUT', `/api/v1/solutions/${solution}`, {
    token: platform.adminToken,
    body: { files },
  });
  expect(put.status, put.text).toBe(201);
  const key = await platform.api('PUT', `/api/v1/solutions/${solution}/credentials/api-key`, {
    token: platform.adminToken,
    body: { kind: 'secret', value: SECRET },
  });
  expect(key.status, key.text).toBe(201);
}

async function preview(platform: PlatformProcess, solution: string, name = 'items') {
  return platform.api('POST', `/api/v1/solutions/${solution}/datasources/${name}/preview`, {
    token: platform.adminToken,
    body: {},
  });
}

/** The folders of previews in the platforms' sandbox folders (each is removed when its preview ends). */
const previewFolders = () =>
  readdirSync(tmpdir())
    .filter((f) => f.startsWith('restfn-sandbox-'))
    .flatMap((f) => {
      try {
        return readdirSync(join(tmpdir(), f)).filter((e) => e.startsWith('run-'));
      } catch {
        return [];
      }
    });

describe('datasource previews on the platform run in a sandbox process', () => {
  it('shows the rows each table would get and the query rows, with the credential sent; nothing is stored', async () => {
    const { service, received } = await itemService();
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    await publish(platform, 'crm', {
      'functions/rest-get-items.platform': ITEMS(service.url),
      'datasources/items.platform': datasource(
        "SELECT json_extract(data, '$.name') AS name FROM [items] WHERE json_extract(data, '$.price') > 15 ORDER BY id",
      ),
    });
    const before = previewFolders();

    const answer = await preview(platform, 'crm');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({
      datasource: 'items',
      version: 1,
      entities: [{ entity: 'items', function: 'rest-get-items', pages: 2, records: 4 }],
      rows: [{ name: 'item 2a' }, { name: 'item 2b' }],
    });
    expect(answer.body.tables.items.total).toBe(4);
    expect(answer.body.tables.items.rows.map((r: { id: string }) => r.id)).toEqual([
      'i1a',
      'i1b',
      'i2a',
      'i2b',
    ]);
    expect(received).toEqual([`GET /items?page=1 ${SECRET}`, `GET /items?page=2 ${SECRET}`]);
    // Nothing of the rows reached the platform's files, and the sandbox's folder is gone.
    expect(bytesOf(platform.dataDir)).not.toContain('item 2a');
    await expect.poll(() => previewFolders()).toEqual(before);
    expect(answer.text).not.toContain(SECRET);
    const audit = (
      await platform.api('GET', '/api/v1/solutions/crm/executions', { token: platform.adminToken })
    ).body.entries;
    expect(audit).toContainEqual(
      expect.objectContaining({ action: 'preview-datasource', target: 'items', outcome: 'ok' }),
    );
  });

  it('previews REST and static datasources, with the inputs given and the datasources read run first', async () => {
    const { service, received } = await itemService();
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    await publish(platform, 'shop', {
      'functions/rest-get-items.platform': ITEMS(service.url),
      'datasources/thresholds.platform': `type: datasource.static
options:
  data:
    - { id: low, price: 15 }
`,
      'datasources/items.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_REST
  entities:
    - entity: items
      function: rest-get-items
  query: SELECT '$.name', "cheap" AS kind FROM [items] WHERE '$.price' > @min AND '$.name' LIKE @like ORDER BY id
  queryParameters:
    min: =@ctx.datasources.thresholds[0].price
    like: =@ctx.inputs.prefix & '%'
`,
    });
    const answer = await platform.api('POST', '/api/v1/solutions/shop/datasources/items/preview', {
      token: platform.adminToken,
      body: { context: { inputs: { prefix: 'item 2' } } },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({
      datasource: 'items',
      entities: [{ entity: 'items', function: 'rest-get-items', pages: 2, records: 4 }],
      rows: [
        { name: 'item 2a', kind: 'cheap' },
        { name: 'item 2b', kind: 'cheap' },
      ],
      // A REST datasource writes no local table, in a preview as on a device.
      tables: {},
    });
    expect(received).toHaveLength(2);
    const statics = await preview(platform, 'shop', 'thresholds');
    expect(statics.body).toMatchObject({
      datasource: 'thresholds',
      entities: [],
      rows: [{ id: 'low', price: 15 }],
    });
  });

  it('inputs given as context.inputs or context.jig.inputs are read as both; none given is INPUT_REQUIRED', async () => {
    const notes = await testServer((req, res) => {
      const jobId = /^\/jobs\/([^/]+)\/notes$/.exec(req.url ?? '')?.[1];
      json(res, 200, [
        { id: 'n1', jobId, text: 'first' },
        { id: 'n2', jobId: 'other', text: 'not this job' },
      ]);
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const put = await platform.api('PUT', '/api/v1/solutions/field', {
      token: platform.adminToken,
      body: {
        files: {
          'functions/rest-get-job-notes.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${notes.url}/jobs/{jobId}/notes
parameters:
  jobId: { location: path, type: string, required: true }
`,
          // The function's parameter from one form, the query's from the other, as real files mix them.
          'datasources/job-notes.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: job-notes
      function: rest-get-job-notes
      functionParameters:
        jobId: =@ctx.jig.inputs.jobId
  query: SELECT id, '$.text' FROM [job-notes] WHERE '$.jobId' = @jobId
  queryParameters:
    jobId: =@ctx.inputs.jobId
`,
        },
      },
    });
    expect(put.status, put.text).toBe(201);
    const previewWith = (context: unknown) =>
      platform.api('POST', '/api/v1/solutions/field/datasources/job-notes/preview', {
        token: platform.adminToken,
        body: { context },
      });
    for (const context of [{ jig: { inputs: { jobId: 'job-1' } } }, { inputs: { jobId: 'job-1' } }]) {
      const answer = await previewWith(context);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.rows, JSON.stringify(context)).toEqual([{ id: 'n1', text: 'first' }]);
    }
    expect(notes.requests.map((r) => r.url)).toEqual(['/jobs/job-1/notes', '/jobs/job-1/notes']);
    const none = await previewWith({});
    expect(none.status, none.text).toBe(400);
    expect(none.body).toMatchObject({ code: 'INPUT_REQUIRED' });
    expect(none.body.message).toContain("datasource 'job-notes' reads input jobId");
    expect(notes.requests).toHaveLength(2);
  });

  it("an author's SQL never reaches a file: ATTACH, VACUUM INTO and PRAGMA are refused, however written", async () => {
    const { service, received } = await itemService();
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const platformDb = join(platform.dataDir, 'platform.db');
    expect(existsSync(platformDb)).toBe(true);
    const copy = join(tmpdir(), `restfn-vacuum-${process.pid}.db`);
    const statements = [
      `ATTACH DATABASE '${platformDb}' AS p`,
      `/* hidden */ ;  attach '${platformDb}' as p`,
      `VACUUM INTO '${copy}'`,
      'PRAGMA hard_heap_limit = 0',
      `-- a comment\nDETACH p`,
    ];
    for (const [i, statement] of statements.entries()) {
      await publish(platform, `s${i}`, {
        'functions/rest-get-items.platform': ITEMS(service.url),
        'datasources/items.platform': datasource(statement),
      });
      const answer = await preview(platform, `s${i}`);
      expect(answer.status, statement).toBe(422);
      expect(answer.body, statement).toMatchObject({ code: 'QUERY_NOT_ALLOWED' });
    }
    // The same in a function's queries, which run before its request: nothing is sent.
    await publish(platform, 'q', {
      'functions/rest-get-items.platform': ITEMS(
        service.url,
        `queries:\n  users:\n    statement: ATTACH DATABASE '${platformDb}' AS p\n`,
      ),
      'datasources/items.platform': datasource('SELECT 1'),
    });
    const answer = await preview(platform, 'q');
    expect(answer.body).toMatchObject({ code: 'QUERY_NOT_ALLOWED' });
    expect(received.filter((r) => r.includes('?page='))).toHaveLength(statements.length * 2);
    // And in an execute-sql operation, which runs when the rows are written.
    await publish(platform, 'op', {
      'functions/rest-get-items.platform': `${ITEMS(service.url)}operations:
  - type: operation.execute-sql
    statements:
      - statement: VACUUM INTO '${copy}'
`,
      'datasources/items.platform': datasource('SELECT 1'),
    });
    const operation = await preview(platform, 'op');
    expect(operation.body, operation.text).toMatchObject({ code: 'QUERY_NOT_ALLOWED' });
    expect(existsSync(copy)).toBe(false);
  });

  it("an author's SQL holds no transaction: BEGIN in any form, END, RELEASE (issue 36, row 8)", async () => {
    const { service } = await itemService();
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const statements = ['BEGIN IMMEDIATE', '/* x */ begin -- y\n EXCLUSIVE transaction', 'END', 'RELEASE s'];
    for (const [i, statement] of statements.entries()) {
      await publish(platform, `t${i}`, {
        'functions/rest-get-items.platform': ITEMS(service.url),
        'datasources/items.platform': datasource(statement),
      });
      const answer = await preview(platform, `t${i}`);
      expect(answer.status, statement).toBe(422);
      expect(answer.body, statement).toMatchObject({ code: 'QUERY_NOT_ALLOWED' });
    }
  });

  it('a runaway query is stopped by its process: memory at the data-size limit, CPU at the deadline; other solutions go on', async () => {
    const { service } = await itemService();
    const platform = await startPlatformProcess({
      args: ['--allow-private-targets', '--max-execution-ms', '1500', '--max-memory-mb', '64'],
    });
    await publish(platform, 'hog', {
      'functions/rest-get-items.platform': ITEMS(service.url),
      // Native SQLite work that never yields: neither JSONata's timeout nor a worker's heap limit reach it.
      'datasources/items.platform': datasource(
        'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
      ),
      'datasources/memory.platform': datasource(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT group_concat(printf('%0200d', x)) FROM c",
      ).replace('entity: items', 'entity: blobs'),
    });
    await publish(platform, 'other', { 'functions/rest-get-items.platform': ITEMS(service.url) });

    const spinning = preview(platform, 'hog');
    // While it spins: a second preview of the same solution is refused, another solution runs.
    await expect.poll(async () => (await preview(platform, 'hog', 'memory')).status).toBe(429);
    const other = await platform.api('POST', '/api/v1/solutions/other/functions/rest-get-items/execute', {
      token: platform.adminToken,
      body: {},
    });
    expect(other.status, other.text).toBe(200);
    const stopped = await spinning;
    expect(stopped.body, stopped.text).toMatchObject({ code: 'EXECUTION_STALLED' });
    expect(stopped.body.message).toContain('--max-execution-ms');

    // The memory case on a platform whose deadline cannot come first on a loaded machine: what
    // stops it is the data-size limit.
    const roomy = await startPlatformProcess({
      args: ['--allow-private-targets', '--max-execution-ms', '60000', '--max-memory-mb', '64'],
    });
    await publish(roomy, 'hog', {
      'functions/rest-get-items.platform': ITEMS(service.url),
      'datasources/memory.platform': datasource(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT group_concat(printf('%0200d', x)) FROM c",
      ).replace('entity: items', 'entity: blobs'),
    });
    const big = await preview(roomy, 'hog', 'memory');
    expect(big.body, big.text).toMatchObject({ code: 'EXECUTION_MEMORY' });
    // The platforms are still there.
    expect((await platform.api('GET', '/healthz')).status).toBe(200);
    expect((await roomy.api('GET', '/healthz')).status).toBe(200);
  });
});
