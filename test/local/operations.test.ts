import { describe, expect, test } from 'vitest';
import { json, testServer } from '../helpers/http-server.js';
import { datasource, seed, syncSetup } from '../helpers/sync.js';

describe('operations', () => {
  test('find-replace renames a temp id that has no real row yet, in ids and in references', async () => {
    const server = await testServer((_, res) => json(res, 200, { id: 'srv-9' }));
    const { runtime, store } = syncSetup({
      'functions/rest-create.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/items
forRowsWithMatchingIds: true
operations:
  - type: operation.find-replace
    find: _tmp_7
    replace: =@ctx.output.id
    tables: [items, notes]
`,
      'datasources/items.platform': datasource('items', 'rest-create'),
    });
    seed(store, 'items', [{ id: '_tmp_7', name: 'draft' }]);
    seed(store, 'notes', [{ id: 'n1', item: '_tmp_7' }]);
    await runtime.sync('items');
    expect(store.db.prepare('SELECT id FROM [items]').all()).toEqual([{ id: 'srv-9' }]);
    expect(store.rows('items')).toEqual([{ id: 'srv-9', name: 'draft' }]);
    expect(store.rows('notes')).toEqual([{ id: 'n1', item: 'srv-9' }]);
  });

  test('each type, with when, table expressions, records and primaryKey', async () => {
    const server = await testServer((_, res) =>
      json(res, 200, {
        items: [
          { itemId: 'a', name: 'A2', status: 'open' },
          { itemId: 'b', name: 'B', status: 'done' },
        ],
        archived: [{ id: 'old-1', name: 'Old' }],
        empty: [],
      }),
    );
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
parameters:
  status: { location: output, type: string, value: open }
forRowsWithMatchingIds: true
operations:
  - type: operation.upsert-merge
    records: =items
    primaryKey: =@ctx.record.itemId
  - type: operation.upsert-replace
    table: =@ctx.entity & '_archive'
    records: =archived
  - type: operation.upsert-replace
    table: never_written
    when: =$count(@ctx.output.empty) > 0
    records: =items
  - type: operation.delete-insert
    table: by_status
    forRowsWithValues:
      status: status
    records: =items[status = 'open']
    primaryKey: =@ctx.record.itemId
  - type: operation.execute-sql
    tables: [meta]
    statements:
      - statement: INSERT OR REPLACE INTO [meta] (id, data) VALUES ('last', json_object('count', @count, 'status', @status))
        parameters:
          count: =$count(@ctx.output.items)
          status: =@ctx.parameters.status
  - type: operation.find-replace
    find: _tmp_42
    replace: =@ctx.output.items[0].itemId
    tables: [items, notes]
`,
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    seed(store, 'items', [
      { id: 'a', name: 'A', color: 'red' },
      { id: '_tmp_42', name: 'draft' },
    ]);
    seed(store, 'notes', [{ id: 'n1', item: '_tmp_42' }]);
    seed(store, 'by_status', [
      { id: 'x', status: 'open' },
      { id: 'y', status: 'done' },
    ]);
    await runtime.sync('items');

    // upsert-merge with primaryKey: merged into 'a' (color kept), 'b' added. find-replace then
    // meets a temp row whose real id 'a' already exists: the real row wins, the temp row goes.
    expect(store.rows('items')).toEqual([
      { id: 'a', name: 'A2', color: 'red', itemId: 'a', status: 'open' },
      { itemId: 'b', name: 'B', status: 'done' },
    ]);
    expect(store.rows('notes')).toEqual([{ id: 'n1', item: 'a' }]);
    expect(store.rows('items_archive')).toEqual([{ id: 'old-1', name: 'Old' }]);
    expect(store.hasTable('never_written')).toBe(false);
    // delete-insert: rows with status 'open' deleted, the open items inserted; 'done' kept.
    expect(store.rows('by_status')).toEqual([
      { itemId: 'a', name: 'A2', status: 'open' },
      { id: 'y', status: 'done' },
    ]);
    expect(store.rows('meta')).toEqual([{ count: 2, status: 'open' }]);
  });
});

describe('queries', () => {
  test('resultType, jsonColumns and dependencies; results usable in parameters and transforms', async () => {
    const server = await testServer((req, res) => json(res, 200, { url: req.url }));
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
parameters:
  since: { location: query, type: string, value: =@ctx.queries.latest }
queries:
  latest:
    statement: SELECT max(json_extract(data, '$.updated')) FROM [items] WHERE json_extract(data, '$.owner') = @owner
    parameters:
      owner: =@ctx.queries.me.data.email
    resultType: scalar
    dependencies: [me]
  me:
    statement: SELECT id, data, json_object('n', 1) AS extra FROM [profile] LIMIT 1
    resultType: record
    jsonColumns: [extra]
  all:
    statement: SELECT id FROM [items] ORDER BY id
  none:
    statement: SELECT data FROM [items] WHERE id = 'missing'
    resultType: record
outputTransform: |
  {
    "url": url,
    "me": @ctx.queries.me,
    "count": $count(@ctx.queries.all),
    "none": @ctx.queries.none
  }
`,
    });
    seed(store, 'profile', [{ id: 'p', email: 'ada@example.com' }]);
    seed(store, 'items', [
      { id: '1', owner: 'ada@example.com', updated: '2026-01-02' },
      { id: '2', owner: 'ada@example.com', updated: '2026-03-04' },
      { id: '3', owner: 'bob@example.com', updated: '2026-12-31' },
    ]);
    const result = await runtime.execute('rest-get-items');
    expect(result).toMatchObject({
      output: {
        url: '/items?since=2026-03-04',
        me: { id: 'p', data: { id: 'p', email: 'ada@example.com' }, extra: { n: 1 } },
        count: 3,
        none: null,
      },
    });
  });

  test('onContinuation: false keeps the first result on later pages', async () => {
    const server = await testServer((req, res) => {
      const url = new URL(req.url, 'http://x');
      json(res, 200, { items: [{ id: url.searchParams.get('page') }] });
    });
    const { runtime } = syncSetup({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
parameters:
  page: { location: query, type: int, value: 1 }
  once: { location: query, type: string, value: =@ctx.queries.once }
  every: { location: query, type: string, value: =@ctx.queries.every }
queries:
  once:
    statement: SELECT hex(randomblob(4))
    resultType: scalar
    onContinuation: false
  every:
    statement: SELECT hex(randomblob(4))
    resultType: scalar
outputTransform: $.items
continuation:
  when: =@ctx.parameters.page < 3
  parameters:
    page: { location: query, type: int, value: =$number(@ctx.parameters.page) + 1 }
    once: { location: query, type: string, value: =@ctx.queries.once }
    every: { location: query, type: string, value: =@ctx.queries.every }
`,
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    await runtime.sync('items');
    const sent = server.requests.map((r) => Object.fromEntries(new URL(r.url, 'http://x').searchParams));
    expect(sent).toHaveLength(3);
    // Parameters reading @ctx.queries resolve after that page's queries: `once` keeps its first
    // result, `every` is run again on each page.
    expect(new Set(sent.map((s) => s.once)).size).toBe(1);
    expect(new Set(sent.map((s) => s.every)).size).toBe(3);
  });
});

describe('guard', () => {
  const files = (url: string, guardResult: string) => ({
    'functions/rest-check.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}/check\n`,
    'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/items
outputTransform: $.items
guard:
  function: rest-check
  parameters:
    unused: =@ctx.entity
  result: ${guardResult}
  operations:
    - type: operation.upsert-replace
      table: sync_log
      records: '{ "id": "last", "guard": @ctx.guard.output, "skipped": true }'
`,
    'datasources/items.platform': datasource('items', 'rest-get-items'),
  });

  test('a passing guard lets the function run; its output is @ctx.guard.output', async () => {
    const server = await testServer((req, res) =>
      req.url === '/check' ? json(res, 200, { valid: true }) : json(res, 200, { items: [{ id: 'a' }] }),
    );
    const { runtime, store } = syncSetup(files(server.url, '=@ctx.guard.output.valid'));
    await runtime.sync('items');
    expect(server.requests.map((r) => r.url)).toEqual(['/check', '/items']);
    expect(store.rows('items')).toEqual([{ id: 'a' }]);
    expect(store.hasTable('sync_log')).toBe(false);
  });

  test('a falsy result skips the function and writes the guard operations; the table is untouched', async () => {
    const server = await testServer((req, res) =>
      req.url === '/check' ? json(res, 200, { valid: false }) : json(res, 200, { items: [{ id: 'a' }] }),
    );
    const { runtime, store } = syncSetup(files(server.url, '=@ctx.guard.output.valid'));
    store.ensureTable('items');
    store.db.prepare(`INSERT INTO [items] VALUES ('kept', '{"id":"kept"}')`).run();
    const result = await runtime.sync('items');
    expect(result.entities[0]).toMatchObject({ pages: 0, stopped: 'skipped' });
    expect(server.requests.map((r) => r.url)).toEqual(['/check']);
    expect(store.rows('items')).toEqual([{ id: 'kept' }]);
    expect(store.rows('sync_log')).toEqual([{ id: 'last', guard: { valid: false }, skipped: true }]);
  });

  test('a guard function that fails skips the function too', async () => {
    const server = await testServer((req, res) => json(res, req.url === '/check' ? 503 : 200, { items: [] }));
    const { runtime, store } = syncSetup(files(server.url, 'true'));
    await runtime.sync('items');
    expect(server.requests.map((r) => r.url)).toEqual(['/check']);
    expect(store.rows('sync_log')).toEqual([{ id: 'last', guard: null, skipped: true }]);
  });
});

describe('datasources', () => {
  test('an unknown or invalid datasource is a clear error, not a crash', async () => {
    const { runtime } = syncSetup({
      'datasources/broken.platform': 'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n',
    });
    await expect(runtime.sync('broken')).rejects.toMatchObject({ code: 'INVALID_DEFINITION' });
    await expect(runtime.sync('brokn')).rejects.toMatchObject({
      code: 'DATASOURCE_NOT_FOUND',
      message: "datasource 'brokn' does not exist (did you mean 'broken'?)",
    });
  });

  test('functionParameters are expressions over the context; the query runs over what landed', async () => {
    const server = await testServer((req, res) => {
      const limit = Number(new URL(req.url, 'http://x').searchParams.get('limit'));
      json(
        res,
        200,
        Array.from({ length: limit }, (_, i) => ({ id: `r${i}`, score: i })),
      );
    });
    const { runtime } = syncSetup({
      'solution.yaml': 'name: s\nsettings:\n  custom:\n    limit: 4\n',
      'functions/rest-get-rows.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/rows\nparameters:\n  limit: { location: query, type: int }\n`,
      'datasources/rows.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: rows
      function: rest-get-rows
      functionParameters:
        limit: =@ctx.solution.settings.custom.limit
    - lookup
  query: SELECT id, json_extract(data, '$.score') AS score FROM [rows] WHERE json_extract(data, '$.score') >= @min ORDER BY id
  queryParameters:
    min: =1 + 1
`,
    });
    const result = await runtime.sync('rows');
    expect(server.requests[0]!.url).toBe('/rows?limit=4');
    expect(result.rows).toEqual([
      { id: 'r2', score: 2 },
      { id: 'r3', score: 3 },
    ]);
  });

  test("timeStamp sets that column of every written row to the write time, from the runtime's clock", async () => {
    const server = await testServer((_, res) => json(res, 200, [{ id: 'a', modified: 'kept' }, { id: 'b' }]));
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
forRowsWithMatchingIds: true
operations:
  - type: operation.upsert-merge
    timeStamp: syncedAt
  - type: operation.upsert-replace
    table: copies
    timeStamp: =@ctx.entity & 'At'
`,
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    await runtime.sync('items');
    // The helper's recording clock starts at 21 Nov 2026, 12:00 UTC.
    const at = '2026-11-21T12:00:00.000Z';
    expect(store.rows('items')).toEqual([
      { id: 'a', modified: 'kept', syncedAt: at },
      { id: 'b', syncedAt: at },
    ]);
    expect(store.rows('copies')).toEqual([
      { id: 'a', modified: 'kept', itemsAt: at },
      { id: 'b', itemsAt: at },
    ]);
  });
});
