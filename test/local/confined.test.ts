import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LocalStore } from '../../src/local/store.js';
import { json, testServer } from '../helpers/http-server.js';
import { datasource, seed, syncSetup } from '../helpers/sync.js';

const fn = (url: string, extra = '') => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/items
${extra}`;

describe("a datasource preview: the definitions' SQL confined to the tables", () => {
  test('previewDatasource shows the rows a sync would write and writes none of them', async () => {
    const server = await testServer((_, res) =>
      json(res, 200, [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ]),
    );
    const { runtime, store } = syncSetup({
      'functions/fn.platform': fn(server.url),
      'datasources/items.platform': datasource(
        'items',
        'fn',
        {},
        "SELECT sum(json_extract(data, '$.n')) AS total FROM [items]",
      ),
    });
    seed(store, 'items', [{ id: 'old' }]);
    const preview = await runtime.previewDatasource('items');
    expect(preview).toMatchObject({
      entities: [{ entity: 'items', function: 'fn', pages: 1, records: 2, stopped: 'done' }],
      tables: {
        items: {
          total: 2,
          rows: [
            { id: 'a', n: 1 },
            { id: 'b', n: 2 },
          ],
        },
      },
      rows: [{ total: 3 }],
    });
    // The device's own table is as it was.
    expect(store.rows('items')).toEqual([{ id: 'old' }]);
  });

  test('a confined store keeps temporary tables and sorts in memory, not in files on the disk', () => {
    const confined = new LocalStore(':memory:', { confined: true });
    const plain = new LocalStore(':memory:');
    // 2: MEMORY (what a statement cannot change: PRAGMA is refused to it); 0: the build's default, files.
    expect(confined.db.pragma('temp_store', { simple: true })).toBe(2);
    expect(plain.db.pragma('temp_store', { simple: true })).toBe(0);
    confined.close();
    plain.close();
  });

  test.each([
    ["ATTACH DATABASE 'other.db' AS o", 'ATTACH'],
    ["/* x */ ; -- y\n attach 'other.db' as o", 'ATTACH'],
    ['DETACH o', 'DETACH'],
    ["VACUUM INTO 'copy.db'", 'VACUUM'],
    ['PRAGMA journal_mode = DELETE', 'PRAGMA'],
    ['PRAGMA table_info([items])', 'PRAGMA'],
    ['BEGIN', 'BEGIN'],
    ['SAVEPOINT s', 'SAVEPOINT'],
    // Issue 36, row 8: every form of a transaction's control, however written.
    ['BEGIN IMMEDIATE', 'BEGIN'],
    ['BEGIN EXCLUSIVE', 'BEGIN'],
    ['/* x */ begin\n  DEFERRED -- y\n transaction;', 'BEGIN'],
    ['-- c\n\tBeGiN ExClUsIvE TrAnSaCtIoN', 'BEGIN'],
    ['begin transaction', 'BEGIN'],
    ['COMMIT', 'COMMIT'],
    ['end transaction', 'END'],
    ['ROLLBACK', 'ROLLBACK'],
    ['ROLLBACK TO s', 'ROLLBACK'],
    ['RELEASE s', 'RELEASE'],
  ])(
    '%j is refused in a query, an operation and the datasource query (QUERY_NOT_ALLOWED)',
    async (sql, keyword) => {
      const server = await testServer((_, res) => json(res, 200, [{ id: 'a' }]));
      const statement = JSON.stringify(sql);
      const { runtime, root } = syncSetup({
        'functions/q.platform': fn(server.url, `queries:\n  x:\n    statement: ${statement}\n`),
        'functions/op.platform': fn(
          server.url,
          `operations:\n  - type: operation.execute-sql\n    statements:\n      - statement: ${statement}\n`,
        ),
        'functions/fn.platform': fn(server.url),
        'datasources/q.platform': datasource('items', 'q'),
        'datasources/op.platform': datasource('items', 'op'),
        'datasources/query.platform': datasource('items', 'fn', {}, sql),
      });
      for (const name of ['q', 'op', 'query']) {
        const failure = runtime.previewDatasource(name);
        await expect(failure).rejects.toMatchObject({ code: 'QUERY_NOT_ALLOWED' });
        await expect(failure).rejects.toThrow(`(${keyword})`);
      }
      expect(existsSync(join(root, 'other.db'))).toBe(false);
      expect(existsSync(join(root, 'copy.db'))).toBe(false);
    },
  );

  test('a sync on a device runs the same SQL (its owner wrote it); an execute-sql statement SQLite rejects is QUERY_FAILED, quoted', async () => {
    const server = await testServer((_, res) => json(res, 200, [{ id: 'a' }]));
    const { runtime } = syncSetup({
      'functions/fn.platform': fn(
        server.url,
        'operations:\n  - type: operation.execute-sql\n    statements:\n      - statement: UPDATE [items] SET nope = 1\n',
      ),
      'functions/ok.platform': fn(
        server.url,
        'queries:\n  mode:\n    statement: PRAGMA user_version\n    resultType: scalar\noutputTransform: "[{\\"id\\": \\"v\\", \\"mode\\": @ctx.queries.mode}]"\n',
      ),
      'datasources/items.platform': datasource('items', 'fn'),
      'datasources/ok.platform': datasource('items', 'ok'),
    });
    await expect(runtime.sync('items')).rejects.toMatchObject({
      code: 'QUERY_FAILED',
      message: expect.stringContaining('"UPDATE [items] SET nope = 1"'),
    });
    expect((await runtime.sync('ok')).entities[0]).toMatchObject({ records: 1 });
  });
});
