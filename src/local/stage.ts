import { randomUUID } from '../portable/random.js';
import type { SqlStatement as Statement } from './database.js';
import type { RangeMatch, ValueMatch } from './scope.js';
import { guarded, prepareChecked } from './statement-checks.js';
import type { LocalStore } from './store.js';
import { quoteTable, StoreError } from './table-name.js';

export const COMMAND_QUEUE_TABLE = '_commandQueue';

/** One row to write: its id and the record. */
export interface StagedRow {
  readonly id: string;
  readonly data: unknown;
}

/** Everything a sync may write, recorded first and replayed at commit, in order. */
export type StagedWrite =
  | {
      readonly kind: 'rows';
      readonly table: string;
      readonly merge: boolean;
      readonly rows: readonly StagedRow[];
    }
  | {
      readonly kind: 'delete';
      readonly table: string;
      readonly values: readonly ValueMatch[];
      readonly ranges: readonly RangeMatch[];
      readonly keepTempIds: boolean;
    }
  | {
      readonly kind: 'sql';
      readonly statement: string;
      readonly parameters: unknown;
      readonly tables: readonly string[];
    }
  | {
      readonly kind: 'find-replace';
      readonly find: string;
      readonly replace: string;
      readonly tables: readonly string[];
      readonly includeCommandQueue: boolean;
    };

/**
 * What the replay needs to know about each batch; row data and payloads stay in SQLite. A `swap`
 * batch stands where a whole-table delete was staged: its rows went straight into a shadow table,
 * which takes the table's place at that point of the replay.
 */
type Batch =
  | { id: number; kind: 'rows'; table: string; merge: boolean }
  | { id: number; kind: 'payload' }
  | { id: number; kind: 'swap'; table: string; shadow: string };

/** A whole-table replace in progress: the rows staged for `table` since its delete, already upserted. */
interface Shadow {
  readonly name: string;
  readonly insert: RowInserter;
  merge?: RowInserter;
}

/** Rows per INSERT statement: one call into SQLite per chunk rather than per row. */
const CHUNK = 50;

/**
 * Inserts rows (`lead` value if given, id, the record as JSON) with one statement per `CHUNK` rows
 * and the rest one by one; SQLite applies the rows of one statement in order, as separate inserts
 * would be (a later row of the same id meets the conflict clause like any other).
 */
class RowInserter {
  private one: Statement | undefined;
  private many: Statement | undefined;

  constructor(
    private readonly db: LocalStore['db'],
    /** `INSERT INTO [table] (columns)`, the columns ending in `id, data`. */
    private readonly head: string,
    private readonly width: 2 | 3,
    /** Conflict clause. */
    private readonly tail = '',
  ) {}

  private statement(rows: number): Statement {
    const tuple = this.width === 2 ? '(?, ?)' : '(?, ?, ?)';
    return this.db.prepare(`${this.head} VALUES ${Array(rows).fill(tuple).join(', ')} ${this.tail}`);
  }

  run(rows: readonly StagedRow[], lead?: number): void {
    const width = this.width;
    let i = 0;
    if (rows.length >= CHUNK) {
      this.many ??= this.statement(CHUNK);
      const args: unknown[] = new Array(width * CHUNK);
      for (; i + CHUNK <= rows.length; i += CHUNK) {
        for (let j = 0, k = 0; j < CHUNK; j++) {
          const row = rows[i + j]!;
          if (width === 3) args[k++] = lead;
          args[k++] = row.id;
          args[k++] = JSON.stringify(row.data);
        }
        this.many.run(args);
      }
    }
    if (i === rows.length) return;
    this.one ??= this.statement(1);
    for (; i < rows.length; i++) {
      const row = rows[i]!;
      if (width === 3) this.one.run(lead, row.id, JSON.stringify(row.data));
      else this.one.run(row.id, JSON.stringify(row.data));
    }
  }
}

export interface CommitSummary {
  /** Tables written, in first-written order. */
  readonly tables: string[];
}

/**
 * A write log in a staging table of the same database. Each `add` is one short transaction, so pages
 * stream to disk and memory stays flat; the real tables are untouched until `commit` replays the log
 * in one transaction. `discard` (on any failure) leaves them exactly as they were.
 *
 * A whole-table replace (delete everything, then write rows) is not logged row by row: from the
 * delete on, the table's rows go into a shadow table with the same columns (upserted there as the
 * replay would upsert them), and at commit the shadow is renamed into the table's place, so each row
 * is written once. That moves those row writes to where the delete stands in the log, which changes
 * nothing as long as no write in between can touch the table: a write that might (any SQL
 * statement, a scoped delete or find-replace on the table) closes the shadow, and the table's later
 * rows are logged as usual.
 */
export class Stage {
  private readonly table: string;
  private readonly insert: Statement;
  private readonly insertRows: RowInserter;
  private readonly batches: Batch[] = [];
  /** Open shadows by table; closed ones are left to their swap batches. */
  private readonly shadows = new Map<string, Shadow>();

  private open = true;

  constructor(private readonly store: LocalStore) {
    this.table = store.createStageTable();
    this.insert = store.db.prepare(`INSERT INTO [${this.table}] (batch, id, data) VALUES (?, ?, ?)`);
    this.insertRows = new RowInserter(store.db, `INSERT INTO [${this.table}] (batch, id, data)`, 3);
  }

  add(writes: readonly StagedWrite[]): void {
    this.store.db.transaction(() => {
      for (const write of writes) {
        if (write.kind === 'rows') {
          const shadow = this.shadows.get(write.table);
          if (shadow) (write.merge ? this.mergeInto(shadow) : shadow.insert).run(write.rows);
          else this.insertRows.run(write.rows, this.rowBatch(write.table, write.merge));
        } else if (write.kind === 'delete' && wholeTable(write)) {
          this.openShadow(write.table);
        } else {
          this.closeShadows(write);
          const id = this.batches.length;
          this.batches.push({ id, kind: 'payload' });
          // SQL parameters are made bindable now: JSON would drop undefined and turn bytes into text.
          const staged =
            write.kind === 'sql' ? { ...write, parameters: stageParameters(write.parameters) } : write;
          this.insert.run(id, null, JSON.stringify(staged));
        }
      }
    })();
  }

  /** A whole-table delete: a new shadow for `table`, swapped in where the delete stands. */
  private openShadow(table: string): void {
    quoteTable(table);
    const name = this.store.createShadowTable();
    const insert = new RowInserter(
      this.store.db,
      `INSERT INTO [${name}] (id, data)`,
      2,
      'ON CONFLICT(id) DO UPDATE SET data = excluded.data',
    );
    this.batches.push({ id: this.batches.length, kind: 'swap', table, shadow: name });
    this.shadows.set(table, { name, insert });
  }

  private mergeInto(shadow: Shadow): RowInserter {
    shadow.merge ??= new RowInserter(
      this.store.db,
      `INSERT INTO [${shadow.name}] (id, data)`,
      2,
      `ON CONFLICT(id) DO UPDATE SET data = restfn_merge([${shadow.name}].data, excluded.data)`,
    );
    return shadow.merge;
  }

  /** Closes the shadows a logged write might touch: SQL may touch any table, the others name theirs. */
  private closeShadows(write: StagedWrite): void {
    if (write.kind === 'sql') this.shadows.clear();
    else if (write.kind === 'delete') this.shadows.delete(write.table);
    else if (write.kind === 'find-replace') for (const table of write.tables) this.shadows.delete(table);
  }

  /** Consecutive rows for the same table and mode share one batch, so the log stays small. */
  private rowBatch(table: string, merge: boolean): number {
    const last = this.batches.at(-1);
    if (last?.kind === 'rows' && last.table === table && last.merge === merge) return last.id;
    const id = this.batches.length;
    this.batches.push({ id, kind: 'rows', table, merge });
    return id;
  }

  /**
   * Replays the log in one transaction. `keep` names rows (by table) that stay exactly as they are
   * locally whatever the log does to them: records with changes still queued for the service.
   */
  commit(keep: ReadonlyMap<string, readonly string[]> = new Map()): CommitSummary {
    const tables = new Set<string>();
    try {
      this.replayAll(tables, keep);
    } catch (error) {
      this.store.resetTableCache();
      throw error;
    }
    this.drop();
    return { tables: [...tables] };
  }

  private replayAll(tables: Set<string>, keep: ReadonlyMap<string, readonly string[]>): void {
    const db = this.store.db;
    db.transaction(() => {
      const kept = this.snapshot(keep);
      for (const batch of this.batches) {
        if (batch.kind === 'rows') {
          const target = this.store.ensureTable(batch.table);
          tables.add(batch.table);
          // `WHERE true` keeps SQLite from reading ON CONFLICT as a join constraint.
          const update = batch.merge ? `restfn_merge(${target}.data, excluded.data)` : 'excluded.data';
          db.prepare(
            `INSERT INTO ${target} (id, data) SELECT id, data FROM [${this.table}] WHERE batch = ? ORDER BY seq
             ON CONFLICT(id) DO UPDATE SET data = ${update}`,
          ).run(batch.id);
        } else if (batch.kind === 'swap') {
          this.swap(batch.table, batch.shadow);
          tables.add(batch.table);
        } else {
          const { data } = db
            .prepare(`SELECT data FROM [${this.table}] WHERE batch = ? AND id IS NULL`)
            .get(batch.id) as {
            data: string;
          };
          for (const table of replay(this.store, JSON.parse(data) as StagedWrite)) tables.add(table);
        }
      }
      this.restore(kept, tables);
    })();
  }

  /** The rows `keep` names as they are now (undefined: not there), for the tables that exist. */
  private snapshot(
    keep: ReadonlyMap<string, readonly string[]>,
  ): Map<string, Map<string, string | undefined>> {
    const kept = new Map<string, Map<string, string | undefined>>();
    for (const [table, ids] of keep) {
      if (!this.store.hasTable(table)) continue;
      const select = this.store.db.prepare(`SELECT data FROM ${quoteTable(table)} WHERE id = ?`);
      const rows = new Map<string, string | undefined>();
      for (const id of ids) rows.set(id, (select.get(id) as { data: string } | undefined)?.data);
      kept.set(table, rows);
    }
    return kept;
  }

  /** Puts the kept rows back as they were, in the tables this commit wrote. */
  private restore(kept: Map<string, Map<string, string | undefined>>, written: ReadonlySet<string>): void {
    for (const [table, rows] of kept) {
      if (!written.has(table)) continue;
      const target = this.store.ensureTable(table);
      const upsert = this.store.db.prepare(
        `INSERT INTO ${target} (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data`,
      );
      const remove = this.store.db.prepare(`DELETE FROM ${target} WHERE id = ?`);
      for (const [id, data] of rows) {
        if (data === undefined) remove.run(id);
        else upsert.run(id, data);
      }
    }
  }

  /**
   * The shadow takes the table's place: renamed in when nothing else depends on the table, else its
   * rows are copied over the emptied table (as a logged replace would have written them).
   */
  private swap(table: string, shadow: string): void {
    const db = this.store.db;
    const target = quoteTable(table);
    if (!this.store.hasTable(table)) {
      db.exec(`ALTER TABLE [${shadow}] RENAME TO ${target}`);
    } else if (this.store.canReplaceByRename(table)) {
      db.exec(`DROP TABLE ${target}`);
      db.exec(`ALTER TABLE [${shadow}] RENAME TO ${target}`);
    } else {
      db.exec(`DELETE FROM ${target}`);
      db.exec(`INSERT INTO ${target} (id, data) SELECT id, data FROM [${shadow}] ORDER BY rowid`);
      db.exec(`DROP TABLE [${shadow}]`);
    }
    this.store.markKnown(table);
  }

  discard(): void {
    this.drop();
  }

  /** Stages and commits `writes` at once (writes outside a sync, such as error tables). */
  static apply(store: LocalStore, writes: readonly StagedWrite[]): CommitSummary {
    const stage = new Stage(store);
    try {
      stage.add(writes);
      return stage.commit();
    } catch (error) {
      stage.discard();
      throw error;
    }
  }

  /** Drops the log and every shadow not renamed into place (after a commit, those are gone already). */
  private drop(): void {
    if (!this.open) return;
    this.open = false;
    this.shadows.clear();
    for (const batch of this.batches)
      if (batch.kind === 'swap') this.store.db.exec(`DROP TABLE IF EXISTS [${batch.shadow}]`);
    this.store.db.exec(`DROP TABLE IF EXISTS [${this.table}]`);
  }
}

/** A delete of every row of its table: no scope, and no temp-id rows kept. */
function wholeTable(write: Extract<StagedWrite, { kind: 'delete' }>): boolean {
  return write.values.length === 0 && write.ranges.length === 0 && !write.keepTempIds;
}

/** Applies one non-row write; returns the tables it touched. */
function replay(store: LocalStore, write: StagedWrite): string[] {
  const db = store.db;
  switch (write.kind) {
    case 'delete': {
      const target = store.ensureTable(write.table);
      const where: string[] = [];
      const args: unknown[] = [];
      for (const { column, value } of write.values) {
        if (value === null || value === undefined) where.push(`json_extract(data, ?) IS NULL`);
        else where.push(`json_extract(data, ?) = ?`);
        args.push(jsonPath(column), ...(value === null || value === undefined ? [] : [sqlValue(value)]));
      }
      for (const { column, from, to } of write.ranges) {
        where.push(`json_extract(data, ?) BETWEEN ? AND ?`);
        args.push(jsonPath(column), sqlValue(from), sqlValue(to));
      }
      if (write.keepTempIds) where.push('restfn_is_temp_id(id) = 0');
      db.prepare(`DELETE FROM ${target}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`).run(...args);
      return [write.table];
    }
    case 'sql': {
      for (const table of write.tables) store.ensureTable(table);
      // The author's statement: SQLite's refusals become QUERY_FAILED, quoting it.
      const statement = prepareChecked(store, write.statement);
      const parameters = unstageParameters(write.parameters);
      guarded(store, write.statement, () => {
        if (Array.isArray(parameters)) statement.run(...parameters);
        else if (parameters && typeof parameters === 'object') statement.run(parameters);
        else statement.run();
      });
      return [...write.tables];
    }
    case 'find-replace': {
      const touched: string[] = [];
      for (const table of write.tables) {
        const target = store.ensureTable(table);
        // A row already holding the new id is the real one: it wins, and the temp row is dropped.
        // References in other rows' data are replaced as text.
        const args = { find: write.find, replace: write.replace };
        db.prepare(
          `UPDATE OR IGNORE ${target} SET id = replace(id, @find, @replace) WHERE instr(id, @find) > 0`,
        ).run(args);
        db.prepare(`DELETE FROM ${target} WHERE instr(id, @find) > 0`).run({ find: write.find });
        db.prepare(
          `UPDATE ${target} SET data = replace(data, @find, @replace) WHERE instr(data, @find) > 0`,
        ).run(args);
        touched.push(table);
      }
      if (write.includeCommandQueue && store.hasTable(COMMAND_QUEUE_TABLE)) {
        db.prepare(
          `UPDATE [${COMMAND_QUEUE_TABLE}] SET payload = replace(payload, @find, @replace) WHERE instr(payload, @find) > 0`,
        ).run({ find: write.find, replace: write.replace });
      }
      return touched;
    }
    case 'rows':
      throw new Error('rows are replayed by batch');
  }
}

/** SQL parameters for the write log: bindable values, bytes as `{ "$bytes": base64 }`. */
function stageParameters(parameters: unknown): unknown {
  const one = (v: unknown) => {
    const value = sqlValue(v);
    return Buffer.isBuffer(value) ? { $bytes: value.toString('base64') } : value;
  };
  return mapParameters(parameters, one);
}

function unstageParameters(parameters: unknown): unknown {
  const one = (v: unknown) =>
    v !== null && typeof v === 'object' && '$bytes' in v ? Buffer.from(String(v.$bytes), 'base64') : v;
  return mapParameters(parameters, one);
}

/** A list (for `?`) or a map (for `@name`) of values, each mapped. */
function mapParameters(parameters: unknown, one: (v: unknown) => unknown): unknown {
  if (Array.isArray(parameters)) return parameters.map(one);
  if (parameters && typeof parameters === 'object') {
    return Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, one(v)]));
  }
  return undefined;
}

/** `$."column"`: one top-level property, whatever characters its name holds. */
function jsonPath(column: string): string {
  return `$."${column.replaceAll('"', '""')}"`;
}

/** SQLite binds numbers, strings, bigints, buffers and null; booleans become 1/0, objects JSON. */
export function sqlValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'object' && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}

/** The row id of a record: `primaryKey` when given, else its `id`, else a fresh one (written into it). */
/** A record whose id cannot be a row id: the message names the id; the caller adds where. */
export class RecordIdError extends StoreError {
  constructor(message: string) {
    super('RECORD_ID_INVALID', message);
  }
}

/**
 * Text and numbers are ids; anything else is refused rather than turned into text, where every
 * object would become the same '[object Object]' row (or crash, for objects without a prototype).
 */
function rowId(given: unknown): string {
  if (typeof given === 'string') return given;
  if ((typeof given === 'number' && Number.isFinite(given)) || typeof given === 'bigint')
    return String(given);
  const kind = Array.isArray(given)
    ? 'a list'
    : typeof given === 'object'
      ? 'an object'
      : `a ${typeof given}`;
  let shown: string;
  try {
    shown = JSON.stringify(given)?.slice(0, 80) ?? String(given);
  } catch {
    shown = kind;
  }
  throw new RecordIdError(`the record with id ${shown} has ${kind} as its id; ids must be text or numbers`);
}

export function toRow(record: unknown, primaryKey?: unknown): StagedRow {
  const data =
    record !== null && typeof record === 'object' && !Array.isArray(record) ? record : { value: record };
  const given = primaryKey ?? (data as { id?: unknown }).id;
  if (given !== undefined && given !== null && given !== '') return { id: rowId(given), data };
  const id = randomUUID();
  return { id, data: { ...data, id } };
}
