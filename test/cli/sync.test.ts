import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { datasource, datasourceOf } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

describe('restfn sync and query', () => {
  test('sync fills the default database page by page; query prints rows as JSON', async () => {
    const server = await testServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);
      json(res, 200, {
        items:
          page <= 3
            ? [
                { id: `p${page}a`, page },
                { id: `p${page}b`, page },
              ]
            : [],
      });
    });
    const root = tempSolution({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
parameters:
  page: { location: query, type: int, value: 1 }
outputTransform: $.items
continuation:
  when: =$count(@ctx.output) > 0
  parameters:
    page: { location: query, type: int, value: =$number(@ctx.parameters.page) + 1 }
`,
      'datasources/items.platform': `${datasource('items', 'rest-get-items', {}, "SELECT id FROM [items] WHERE json_extract(data, '$.page') = @page ORDER BY id")}  queryParameters:\n    page: =1 + 1\n`,
    });
    const sync = await runCli(['sync'], { cwd: root });
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout).toMatch(
      /^items: items <- rest-get-items: 4 pages, 6 records, query returns 2 rows \(\d+\.\d s\)\n$/,
    );
    expect(existsSync(join(root, '.restfn', 'local.db'))).toBe(true);

    const byName = await runCli(['query', 'items'], { cwd: root });
    expect(JSON.parse(byName.stdout)).toEqual([{ id: 'p2a' }, { id: 'p2b' }]);
    const bySql = await runCli(['query', 'SELECT count(*) AS n FROM [items]'], { cwd: root });
    expect(JSON.parse(bySql.stdout)).toEqual([{ n: 6 }]);
    const bad = await runCli(['query', 'SELEC nonsense'], { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('QUERY_INVALID');
  });

  test('--db chooses the file; the page cap fails the sync and keeps the table, unless --allow-partial', async () => {
    const server = await testServer((req, res) => json(res, 200, { items: [{ id: req.url }], more: true }));
    const root = tempSolution({
      'solution.yaml': 'name: s\nsettings:\n  sync:\n    maxPages: 2\n',
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
parameters:
  n: { location: query, type: int, value: 1 }
outputTransform: $.items
continuation:
  when: =@ctx.response.body.more
  parameters:
    n: { location: query, type: int, value: =@ctx.parameters.n + 1 }
`,
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    const db = join(root, 'elsewhere.db');
    const capped = await runCli(['sync', 'items', '--db', db], { cwd: root });
    expect(capped.code).toBe(1);
    expect(capped.stderr).toContain('PAGE_LIMIT');
    expect(capped.stderr).toContain(
      "restfn: items: not synced: paging ended after page 2, before the service's data did; the tables are as they were (--allow-partial keeps the pages before it)",
    );
    expect(capped.stdout).toBe('');
    const r = await runCli(['sync', 'items', '--db', db, '--allow-partial'], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^items: items <- rest-get-items: 2 pages, 2 records \(partial\)/);
    expect(r.stderr).toContain(
      'restfn: warning: items: partial (--allow-partial): kept 2 pages, then PAGE_LIMIT:',
    );
    expect(existsSync(db)).toBe(true);
    expect(
      JSON.parse(
        (await runCli(['query', 'SELECT id FROM [items] ORDER BY id', '--db', db], { cwd: root })).stdout,
      ),
    ).toEqual([{ id: '/items?n=1' }, { id: '/items?n=2' }]);
  });

  test('a failing sync exits 1 and leaves the previous rows', async () => {
    let fail = false;
    const server = await testServer((_, res) => (fail ? json(res, 503, {}) : json(res, 200, [{ id: 'a' }])));
    const root = tempSolution({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\n`,
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    expect((await runCli(['sync'], { cwd: root })).code).toBe(0);
    fail = true;
    const r = await runCli(['sync'], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('REMOTE_ERROR');
    expect(JSON.parse((await runCli(['query', 'SELECT id FROM [items]'], { cwd: root })).stdout)).toEqual([
      { id: 'a' },
    ]);
    const unknown = await runCli(['sync', 'itmes'], { cwd: root });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("did you mean 'items'");
  });

  test('several entities: one commit by default; --commit-per-entity keeps the first and says so', async () => {
    const server = await testServer((req, res) =>
      req.url.startsWith('/orders') ? json(res, 503, {}) : json(res, 200, [{ id: 'c-new' }]),
    );
    const root = tempSolution({
      'functions/rest-get-customers.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/customers\n`,
      'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/orders\n`,
      'datasources/shop.platform': datasourceOf({
        customers: 'rest-get-customers',
        orders: 'rest-get-orders',
      }),
    });
    const once = await runCli(['sync'], { cwd: root });
    expect(once.code).toBe(1);
    const customers = () => runCli(['query', 'SELECT id FROM [customers]'], { cwd: root });
    expect(JSON.parse((await customers()).stdout)).toEqual([]);

    const each = await runCli(['sync', '--commit-per-entity'], { cwd: root });
    expect(each.code).toBe(1);
    expect(each.stderr).toContain('restfn: committed: customers <- rest-get-customers: 1 page, 1 record\n');
    expect(JSON.parse((await customers()).stdout)).toEqual([{ id: 'c-new' }]);
  });
});
