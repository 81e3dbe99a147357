import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Stage, type StagedWrite } from '../../src/local/stage.js';
import { LocalStore } from '../../src/local/store.js';
import { seed } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

const store = () => new LocalStore(join(tempSolution(), 'local.db'));

/** Rows of `table` in the order SQLite keeps them (rowid), data parsed. */
const stored = (s: LocalStore, table: string) =>
  s.hasTable(table)
    ? (
        s.db.prepare(`SELECT id, data FROM [${table}] ORDER BY rowid`).all() as Array<{
          id: string;
          data: string;
        }>
      ).map((r) => [r.id, JSON.parse(r.data)])
    : undefined;

const tableNames = (s: LocalStore) =>
  (
    s.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);

const replaceAll = (table: string): StagedWrite => ({
  kind: 'delete',
  table,
  values: [],
  ranges: [],
  keepTempIds: false,
});
const rows = (table: string, records: Array<Record<string, unknown>>, merge = false): StagedWrite => ({
  kind: 'rows',
  table,
  merge,
  rows: records.map((data) => ({ id: String(data.id), data })),
});

describe('a whole-table replace is written once, into a shadow swapped in at commit', () => {
  test('the table holds exactly the new rows, in the order written; no staging table is left', () => {
    const s = store();
    seed(s, 'items', [{ id: 'old' }, { id: 'b', v: 0 }]);
    const stage = new Stage(s);
    stage.add([replaceAll('items'), rows('items', [{ id: 'b', v: 1 }, { id: 'a' }])]);
    stage.add([rows('items', [{ id: 'c' }, { id: 'b', v: 2 }])]);
    // Nothing shows before the commit.
    expect(stored(s, 'items')).toEqual([
      ['old', { id: 'old' }],
      ['b', { id: 'b', v: 0 }],
    ]);
    expect(stage.commit().tables).toEqual(['items']);
    expect(stored(s, 'items')).toEqual([
      ['b', { id: 'b', v: 2 }],
      ['a', { id: 'a' }],
      ['c', { id: 'c' }],
    ]);
    expect(tableNames(s)).toEqual(['items']);
    s.close();
  });

  test('a table that does not exist yet is created by the swap; rows written to it merge there', () => {
    const s = store();
    Stage.apply(s, [
      replaceAll('fresh'),
      rows('fresh', [{ id: 'a', x: 1 }]),
      rows('fresh', [{ id: 'a', y: 2 }], true),
    ]);
    expect(stored(s, 'fresh')).toEqual([['a', { id: 'a', x: 1, y: 2 }]]);
    // The store knows the table: a later write to it needs no CREATE.
    Stage.apply(s, [rows('fresh', [{ id: 'b' }])]);
    expect(s.rows('fresh')).toEqual([{ id: 'a', x: 1, y: 2 }, { id: 'b' }]);
    s.close();
  });

  test('a discarded stage, or a commit that fails after the swap, leaves the table and no shadow', () => {
    const s = store();
    seed(s, 'items', [{ id: 'kept' }]);
    const discarded = new Stage(s);
    discarded.add([replaceAll('items'), rows('items', [{ id: 'new' }])]);
    expect(tableNames(s).filter((n) => n.startsWith('_restfn_stage_'))).toHaveLength(2);
    discarded.discard();
    expect(tableNames(s)).toEqual(['items']);

    const failing = new Stage(s);
    failing.add([
      replaceAll('items'),
      rows('items', [{ id: 'new' }]),
      { kind: 'sql', statement: 'INSERT INTO [no_such_table] VALUES (1)', parameters: undefined, tables: [] },
    ]);
    expect(() => failing.commit()).toThrow(/no such table/);
    failing.discard();
    expect(s.rows('items')).toEqual([{ id: 'kept' }]);
    expect(tableNames(s)).toEqual(['items']);
    s.close();
  });

  test("a shadow is named as this process's staging, so a store opened after a crash drops it", () => {
    const file = join(tempSolution(), 'local.db');
    const s = new LocalStore(file);
    const stage = new Stage(s);
    stage.add([replaceAll('items'), rows('items', [{ id: 'a' }])]);
    const staging = tableNames(s).filter((n) => n !== 'items');
    expect(staging).toHaveLength(2);
    for (const name of staging) expect(name.startsWith(`_restfn_stage_${process.pid}_`)).toBe(true);
    // As if the process had died: the same tables under a dead process's id.
    for (const name of staging)
      s.db.exec(`ALTER TABLE [${name}] RENAME TO [${name.replace(String(process.pid), '999999999')}]`);
    s.close();
    const reopened = new LocalStore(file);
    expect(tableNames(reopened)).toEqual([]);
    reopened.close();
  });

  test('an index, trigger or view on the table survives: the rows are copied in instead', () => {
    const s = store();
    seed(s, 'items', [{ id: 'old', n: 1 }]);
    seed(s, 'audit', []);
    s.db.exec("CREATE INDEX items_n ON [items] (json_extract(data, '$.n'))");
    s.db.exec('CREATE VIEW items_view AS SELECT id FROM [items]');
    s.db.exec(
      "CREATE TRIGGER items_audit AFTER INSERT ON [items] BEGIN INSERT INTO [audit] (id, data) VALUES (new.id, '{}'); END",
    );
    Stage.apply(s, [replaceAll('items'), rows('items', [{ id: 'a', n: 2 }])]);
    expect(s.rows('items')).toEqual([{ id: 'a', n: 2 }]);
    expect(s.db.prepare('SELECT id FROM items_view').all()).toEqual([{ id: 'a' }]);
    expect(s.db.prepare('SELECT id FROM [audit]').all()).toEqual([{ id: 'a' }]);
    expect(tableNames(s)).toEqual(['audit', 'items']);
    expect(
      s.db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type IN ('index', 'view', 'trigger') AND sql IS NOT NULL ORDER BY name",
        )
        .all(),
    ).toEqual([{ name: 'items_audit' }, { name: 'items_n' }, { name: 'items_view' }]);
    s.close();
  });

  test('a table made with other columns keeps them: the rows are copied in', () => {
    const s = store();
    s.db.exec("CREATE TABLE [items] (id TEXT PRIMARY KEY, data JSON, note TEXT DEFAULT 'x')");
    Stage.apply(s, [replaceAll('items'), rows('items', [{ id: 'a' }])]);
    expect(s.db.prepare('SELECT id, note FROM [items]').all()).toEqual([{ id: 'a', note: 'x' }]);
    s.close();
  });
});

/**
 * The stage must write what applying each write in order would: a model of the tables (a Map keeps
 * insertion order, as SQLite's rowids do) against random logs mixing whole-table and scoped deletes,
 * plain and merged rows (few, or enough for multi-row statements) and SQL over two tables, split into pages, committed at once.
 */
describe('any write log ends as the writes applied one by one', () => {
  type Model = Map<string, Map<string, Record<string, unknown>>>;
  const TABLES = ['t1', 't2'];
  const table = fc.constantFrom(...TABLES);
  const record = fc.record({
    id: fc.constantFrom('a', 'b', 'c', 'd'),
    g: fc.constantFrom(1, 2),
    v: fc.integer({ min: 0, max: 9 }),
  });
  const write: fc.Arbitrary<StagedWrite> = fc.oneof(
    table.map(replaceAll),
    fc.tuple(table, fc.constantFrom(1, 2)).map(([t, g]) => ({
      kind: 'delete' as const,
      table: t,
      values: [{ column: 'g', value: g }],
      ranges: [],
      keepTempIds: false,
    })),
    fc
      .tuple(table, fc.array(record, { maxLength: 4 }), fc.boolean())
      .map(([t, rs, merge]) => rows(t, rs, merge)),
    // Enough rows for the multi-row statements, ids repeating within and across their chunks.
    fc
      .tuple(table, fc.integer({ min: 49, max: 130 }), fc.integer({ min: 0, max: 9 }), fc.boolean())
      .map(([t, n, v, merge]) =>
        rows(
          t,
          Array.from({ length: n }, (_, i) => ({
            id: `m${(i * 7) % 61}`,
            g: 1 + (i % 2),
            v,
            ...(i % 3 ? {} : { i }),
          })),
          merge,
        ),
      ),
    table.map((t) => ({
      kind: 'sql' as const,
      statement: `UPDATE [${t}] SET data = json_set(data, '$.s', json_extract(data, '$.v') + 10)`,
      parameters: undefined,
      tables: [t],
    })),
    fc.tuple(table, table).map(([from, to]) => ({
      kind: 'sql' as const,
      statement: `INSERT OR REPLACE INTO [${to}] (id, data) SELECT 'copy-' || id, data FROM [${from}]`,
      parameters: undefined,
      tables: [from, to],
    })),
  );

  function apply(model: Model, w: StagedWrite): void {
    const rowsOf = (t: string) => {
      if (!model.has(t)) model.set(t, new Map());
      return model.get(t)!;
    };
    if (w.kind === 'delete') {
      const m = rowsOf(w.table);
      for (const [id, data] of m) if (w.values.every((c) => data[c.column] === c.value)) m.delete(id);
    } else if (w.kind === 'rows') {
      const m = rowsOf(w.table);
      for (const row of w.rows) {
        const data = row.data as Record<string, unknown>;
        const old = m.get(row.id);
        m.set(row.id, w.merge && old ? { ...old, ...data } : { ...data });
      }
    } else if (w.kind === 'sql' && w.statement.startsWith('UPDATE')) {
      for (const data of rowsOf(w.tables[0]!).values()) data.s = (data.v as number) + 10;
    } else if (w.kind === 'sql') {
      const from = rowsOf(w.tables[0]!);
      const to = rowsOf(w.tables[1]!);
      for (const [id, data] of [...from]) {
        // INSERT OR REPLACE deletes the old row first: the copy goes to the end.
        to.delete(`copy-${id}`);
        to.set(`copy-${id}`, { ...data });
      }
    }
  }

  test('random logs', () => {
    const s = store();
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 3 }),
        fc.array(fc.array(write, { maxLength: 5 }), { maxLength: 5 }),
        (initial, pages) => {
          for (const t of TABLES) s.db.exec(`DROP TABLE IF EXISTS [${t}]`);
          s.resetTableCache();
          const model: Model = new Map();
          if (initial.length > 0) {
            Stage.apply(s, [rows('t1', initial)]);
            apply(model, rows('t1', structuredClone(initial)));
          }
          const stage = new Stage(s);
          for (const page of pages) {
            stage.add(page);
            for (const w of structuredClone(page)) apply(model, w);
          }
          stage.commit();
          for (const t of TABLES) {
            const expected = model.has(t) ? [...model.get(t)!] : undefined;
            expect(stored(s, t)).toEqual(expected);
          }
          expect(tableNames(s).filter((n) => n.startsWith('_restfn_stage_'))).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
    s.close();
  });
});
