import { isTempId } from '../expression/functions.js';
import { randomUUID } from '../portable/random.js';
import { COMMAND_QUEUE_SCHEMA } from './command-queue.js';
import type { SqlDatabase, SqlStatement } from './database.js';
import { privateFile } from './private-path.js';
import { currentProcessId, processAlive } from './process-alive.js';
import { openDatabase } from './sqlite.js';
import { COMMAND_QUEUE_TABLE } from './stage.js';
import { quoteTable, STAGE_PREFIX } from './table-name.js';

/** The columns of every entity table. */
const ENTITY_COLUMNS = '(id TEXT PRIMARY KEY, data JSON)';

export { isTempId } from '../expression/functions.js';
export { quoteTable, StoreError } from './table-name.js';
export { newTempId } from './temp-ids.js';

/**
 * The app's local SQLite database: one file per solution state folder, WAL mode, a table per entity
 * (`id TEXT PRIMARY KEY, data JSON`) created on first use.
 */
export class LocalStore {
  readonly db: SqlDatabase;
  private readonly known = new Set<string>();
  private readonly statements = new Map<string, SqlStatement>();

  /** Refuses author SQL that would change the connection (see `refuseConnectionChanges`). */
  readonly confined: boolean;

  constructor(
    readonly file: string,
    options: {
      readonly confined?: boolean;
      /** An open connection to use instead of opening `file` (the browser client's, in its worker). */
      readonly database?: SqlDatabase;
    } = {},
  ) {
    this.confined = options.confined === true;
    if (options.database) this.db = options.database;
    else {
      if (file !== ':memory:') privateFile(file);
      this.db = openDatabase(file);
      this.db.pragma('journal_mode = WAL');
    }
    this.db.pragma('synchronous = NORMAL');
    // Confined (a preview in a sandbox), temporary tables and sorts stay in memory, where the
    // process's data limit holds them, instead of filling the disk through temporary files.
    if (this.confined) this.db.pragma('temp_store = MEMORY');
    // Top-level merge for upsert-merge (json_patch would merge nested objects too).
    this.db.function('restfn_merge', { deterministic: true }, (a: unknown, b: unknown) =>
      JSON.stringify({ ...parseObject(a), ...parseObject(b) }),
    );
    this.db.function('restfn_is_temp_id', { deterministic: true }, (id: unknown) => (isTempId(id) ? 1 : 0));
    this.dropAbandonedStages();
  }

  /** Creates the entity table when it does not exist yet; returns its quoted name. */
  ensureTable(name: string): string {
    const quoted = quoteTable(name);
    if (!this.known.has(name)) {
      // The command queue is a system table with its own columns, readable by queries like any other.
      this.db.exec(
        name === COMMAND_QUEUE_TABLE
          ? COMMAND_QUEUE_SCHEMA
          : `CREATE TABLE IF NOT EXISTS ${quoted} ${ENTITY_COLUMNS}`,
      );
      this.known.add(name);
    }
    return quoted;
  }

  hasTable(name: string): boolean {
    return (
      this.statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined
    );
  }

  /** A prepared statement, prepared once per text (for statements run once per command or row). */
  statement(sql: string): SqlStatement {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /** Forgets which tables exist: after a rolled-back transaction, tables it created are gone again. */
  resetTableCache(): void {
    this.known.clear();
  }

  /**
   * Staging tables left by a process that died mid-sync. Each is named after its process, so a
   * store opened while another process syncs into the same file leaves that one alone.
   */
  private dropAbandonedStages(): void {
    const stages = this.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?")
      .all(STAGE_PREFIX.length, STAGE_PREFIX) as Array<{ name: string }>;
    for (const { name } of stages) {
      const pid = Number(name.slice(STAGE_PREFIX.length).split('_')[0]);
      if (!processAlive(pid)) this.db.exec(`DROP TABLE [${name}]`);
    }
  }

  /** A fresh staging table (see stage.ts); dropped by the stage when it commits or is discarded. */
  createStageTable(): string {
    const name = stageName();
    this.db.exec(
      `CREATE TABLE [${name}] (seq INTEGER PRIMARY KEY, batch INTEGER NOT NULL, id TEXT, data TEXT)`,
    );
    return name;
  }

  /**
   * A fresh shadow of an entity table (see stage.ts): the same columns, named like a staging table,
   * so a crash leaves nothing a later open does not drop. Renamed into place, or dropped, by the stage.
   */
  createShadowTable(): string {
    const name = stageName();
    this.db.exec(`CREATE TABLE [${name}] ${ENTITY_COLUMNS}`);
    return name;
  }

  /**
   * Whether `name` can be replaced by dropping it and renaming another table in its place: it is an
   * entity table as `ensureTable` makes them, and nothing else in the schema names it (an index of
   * its own, a trigger, a view, a foreign key), which a drop would lose or a rename would trip on.
   */
  canReplaceByRename(name: string): boolean {
    const entries = this.db
      .prepare(
        `SELECT type, name, tbl_name AS owner, sql FROM sqlite_master
         WHERE tbl_name = ? OR type IN ('view', 'trigger') OR (type = 'table' AND sql LIKE '%REFERENCES%')`,
      )
      .all(name) as Array<{ type: string; name: string; owner: string; sql: string | null }>;
    return entries.every((e) =>
      e.type === 'table'
        ? e.name === name && e.sql !== null && e.sql.endsWith(` ${ENTITY_COLUMNS}`)
        : e.type === 'index' && e.owner === name && e.sql === null,
    );
  }

  /** The entity tables (made by `ensureTable`): what a temporary id may be referenced from. */
  entityTables(): string[] {
    return (
      this.db
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) <> ?")
        .all(STAGE_PREFIX.length, STAGE_PREFIX) as Array<{ name: string; sql: string | null }>
    )
      .filter((t) => t.sql?.endsWith(` ${ENTITY_COLUMNS}`))
      .map((t) => t.name);
  }

  /** Records that `name` exists now (made by a rename rather than `ensureTable`). */
  markKnown(name: string): void {
    this.known.add(name);
  }

  /** All rows of a table as records (`data` parsed), in id order. */
  rows(table: string): Array<Record<string, unknown>> {
    if (!this.hasTable(table)) return [];
    return (
      this.db.prepare(`SELECT data FROM ${quoteTable(table)} ORDER BY id`).all() as Array<{ data: string }>
    ).map((r) => JSON.parse(r.data));
  }

  close(): void {
    this.db.close();
  }
}

/** A staging table's name: the prefix, this process (see `dropAbandonedStages`), then a fresh part. */
function stageName(): string {
  return `${STAGE_PREFIX}${currentProcessId()}_${randomUUID().replaceAll('-', '')}`;
}

function parseObject(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return {};
  const value = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}
