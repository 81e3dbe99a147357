import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tablesWritten, WrittenTables } from '../../src/browser/worker/written-tables.js';
import { Stage } from '../../src/local/stage.js';
import { LocalStore } from '../../src/local/store.js';

// The worker's changed-tables wrapper, on better-sqlite3 (the same SqlDatabase interface) under the
// library's own store: what a live query re-runs on.

describe('tablesWritten', () => {
  it('reads the target of each kind of write, in any quoting', () => {
    expect(tablesWritten('INSERT INTO [customers] (id, data) VALUES (?, ?)', true)).toEqual(['customers']);
    expect(tablesWritten('INSERT OR REPLACE INTO "a ""b""" VALUES (1)', true)).toEqual(['a "b"']);
    expect(tablesWritten('UPDATE main.`orders` SET data = 1', true)).toEqual(['orders']);
    expect(tablesWritten('DELETE FROM notes WHERE id = 1', true)).toEqual(['notes']);
    expect(tablesWritten('ALTER TABLE [_stage_1] RENAME TO [customers]', true)).toEqual([
      '_stage_1',
      'customers',
    ]);
    expect(
      tablesWritten(
        'INSERT INTO [t] (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data',
        true,
      ),
    ).toEqual(['t']);
  });

  it('says "every table" for a write whose target it cannot read, and nothing for DDL and transaction control', () => {
    expect(tablesWritten('WITH x AS (SELECT 1) SELECT * FROM x', true)).toEqual(['*']);
    expect(tablesWritten('CREATE TABLE IF NOT EXISTS [t] (id TEXT)', true)).toEqual([]);
    expect(tablesWritten('SAVEPOINT s1', true)).toEqual([]);
    expect(tablesWritten('SELECT 1', false)).toEqual([]);
  });
});

describe('WrittenTables', () => {
  function store() {
    const written = new WrittenTables(new Database(':memory:'));
    return { written, store: new LocalStore('test.db', { database: written.database }) };
  }

  it("a staged write reports its entity's table, not the staging tables or the tables it did not write", () => {
    const { written, store: s } = store();
    s.ensureTable('customers');
    s.ensureTable('notes');
    written.start();
    Stage.apply(s, [
      { kind: 'rows', table: 'customers', merge: false, rows: [{ id: 'c-1', data: { id: 'c-1' } }] },
    ]);
    expect(written.take()).toEqual(['customers']);
    // Nothing since: nothing to report.
    expect(written.take()).toEqual([]);
  });

  it('a statement that changed no row is no change; one that did is', () => {
    const { written, store: s } = store();
    const quoted = s.ensureTable('notes');
    written.start();
    s.db.prepare(`UPDATE ${quoted} SET data = '{}' WHERE id = 'none'`).run();
    expect(written.take()).toEqual([]);
    s.db.prepare(`INSERT INTO ${quoted} (id, data) VALUES ('n-1', '{}')`).run();
    expect(written.take()).toEqual(['notes']);
  });
});
