import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { openFiles, openStore } from '../../src/cli/store-path.js';
import { Stage } from '../../src/local/stage.js';
import { LocalStore } from '../../src/local/store.js';
import { json, testServer } from '../helpers/http-server.js';
import { datasource, seed, syncSetup } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

describe('what a sync must never do to existing rows', () => {
  test('a function its `when` skips leaves its table as it is', async () => {
    const server = await testServer((_, res) => json(res, 200, []));
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\nwhen: false\n`,
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    seed(store, 'items', [{ id: 'kept' }]);
    expect((await runtime.sync('items')).entities[0]).toMatchObject({ stopped: 'skipped', records: 0 });
    expect(store.rows('items')).toEqual([{ id: 'kept' }]);
    expect(server.requests).toHaveLength(0);
  });

  test('find-replace with nothing to find (absent or empty) writes nothing', async () => {
    const server = await testServer((_, res) => json(res, 200, { id: 'srv-1' }));
    const { runtime, store } = syncSetup({
      'functions/rest-create.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${server.url}/items
forRowsWithMatchingIds: true
operations:
  - type: operation.find-replace
    find: =@ctx.output.tempId
    replace: =@ctx.output.id
  - type: operation.find-replace
    find: ''
    replace: x
`,
      'datasources/items.platform': datasource('items', 'rest-create'),
    });
    seed(store, 'items', [{ id: 'a', note: 'undefined' }, { id: 'b' }]);
    await runtime.sync('items');
    expect(store.rows('items')).toEqual([{ id: 'a', note: 'undefined' }, { id: 'b' }]);
  });

  test('execute-sql values survive staging: absent values bind as NULL, bytes as a BLOB', async () => {
    const server = await testServer((_, res) => json(res, 200, { n: 1 }));
    const { runtime, store } = syncSetup({
      'functions/rest-x.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/x
operations:
  - type: operation.execute-sql
    tables: [log]
    statements:
      - statement: INSERT INTO [log] (id, data) VALUES ('one', json_object('missing', @missing, 'flag', @flag))
        parameters:
          missing: =@ctx.output.nothing
          flag: =true
`,
      'datasources/x.platform': datasource('x', 'rest-x'),
    });
    await runtime.sync('x');
    expect(store.rows('log')).toEqual([{ missing: null, flag: 1 }]);

    const stage = new Stage(store);
    stage.add([
      {
        kind: 'sql',
        statement: 'INSERT INTO [log] (id, data) VALUES (?, ?)',
        parameters: ['bin', Buffer.from([0, 255])],
        tables: ['log'],
      },
    ]);
    stage.commit();
    const row = store.db
      .prepare("SELECT typeof(data) AS t, hex(data) AS h FROM [log] WHERE id = 'bin'")
      .get();
    expect(row).toEqual({ t: 'blob', h: '00FF' });
  });
});

describe('the store across failures and processes', () => {
  test('tables created by a commit that rolled back are created again next time', () => {
    const store = new LocalStore(join(tempSolution(), 'local.db'));
    const failing = new Stage(store);
    failing.add([
      { kind: 'rows', table: 'fresh', merge: false, rows: [{ id: '1', data: { id: '1' } }] },
      { kind: 'sql', statement: 'INSERT INTO [no_such_table] VALUES (1)', parameters: undefined, tables: [] },
    ]);
    expect(() => failing.commit()).toThrow(/no such table/);
    failing.discard();
    expect(store.hasTable('fresh')).toBe(false);
    const retry = new Stage(store);
    retry.add([{ kind: 'rows', table: 'fresh', merge: false, rows: [{ id: '2', data: { id: '2' } }] }]);
    retry.commit();
    expect(store.rows('fresh')).toEqual([{ id: '2' }]);
    store.close();
  });

  test('opening a store drops staging left by dead processes only, and never user tables', () => {
    const file = join(tempSolution(), 'local.db');
    const first = new LocalStore(file);
    first.db.exec(`CREATE TABLE [_restfn_stage_${process.pid}_live] (seq INTEGER)`);
    first.db.exec('CREATE TABLE [_restfn_stage_999999999_dead] (seq INTEGER)');
    first.db.exec('CREATE TABLE [XrestfnXstageXmine] (seq INTEGER)');
    first.close();
    const second = new LocalStore(file);
    const names = (
      second.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
        name: string;
      }>
    ).map((r) => r.name);
    expect(names).toEqual(['XrestfnXstageXmine', `_restfn_stage_${process.pid}_live`]);
    second.close();
  });
});

describe('who may read the local data', () => {
  test('the database, its WAL and stored files are 0600; the state folder 0700, tightened when older', () => {
    const root = tempSolution();
    const folder = join(root, '.restfn');
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    const store = openStore(root, undefined);
    seed(store, 'items', [{ id: 'a', email: 'ada@example.com' }]);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const file of ['local.db', 'local.db-wal']) {
      expect(statSync(join(folder, file)).mode & 0o777, file).toBe(0o600);
    }
    const uri = openFiles(store).save(Buffer.from('personal'), 'txt');
    expect(statSync(fileURLToPath(uri)).mode & 0o777).toBe(0o600);
    expect(statSync(join(folder, 'files')).mode & 0o777).toBe(0o700);
    store.close();
  });
});
