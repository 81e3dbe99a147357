import type { SqlDatabase, SqlParameters, SqlStatement } from '../../local/database.js';
import { ALL_TABLES } from '../protocol.js';

// The tables an operation wrote, for live queries (`client.watch`) and `on('change')`. SQLite's
// update hook is not part of the SqlDatabase interface (better-sqlite3 has none), so the worker
// hands the local logic a database that notes the target of each writing statement as it runs:
// what the runtime did, at the level where it does it (a sync's entity tables, an action's entity
// table and the queue, a push's temp-id replacements), without a twin of its decisions.

/** A table name as SQL writes it: [x], "x", `x` or a bare word, optionally after `main.`. */
const NAME = String.raw`(?:main\s*\.\s*)?(?:\[([^\]]+)\]|"((?:[^"]|"")+)"|\x60([^\x60]+)\x60|([A-Za-z_][\w$]*))`;
const TARGETS = [
  String.raw`\b(?:INSERT|REPLACE)\s+(?:OR\s+[A-Za-z]+\s+)?INTO\s+${NAME}`,
  String.raw`\bUPDATE\s+(?:OR\s+[A-Za-z]+\s+)?${NAME}\s+SET\b`,
  String.raw`\bDELETE\s+FROM\s+${NAME}`,
  String.raw`\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?${NAME}`,
  String.raw`\bALTER\s+TABLE\s+${NAME}`,
  String.raw`\bRENAME\s+TO\s+${NAME}`,
].map((source) => new RegExp(source, 'gi'));
/** Words of a statement that may change rows; with no target found, the change is "every table". */
const WRITES = /\b(?:INSERT|REPLACE|UPDATE|DELETE|DROP|ALTER)\b/i;
/**
 * Statements that change no row a query reads: a new table or index is empty, and transaction
 * control is not a change of its own (SQLite counts SAVEPOINT and CREATE as writing).
 */
const NO_CHANGE = /^\s*(?:CREATE|BEGIN|COMMIT|END|SAVEPOINT|RELEASE|ROLLBACK|PRAGMA|ANALYZE)\b/i;

/**
 * The tables `sql` may write, by name; `[ALL_TABLES]` when it writes but no target could be read
 * from it. Reading a name that is not a table (a keyword inside a string literal) costs a spurious
 * re-run at most: `WrittenTables.take` keeps only names that are tables.
 */
export function tablesWritten(sql: string, writes: boolean): string[] {
  if (NO_CHANGE.test(sql)) return [];
  const found = new Set<string>();
  for (const pattern of TARGETS) {
    pattern.lastIndex = 0;
    for (const match of sql.matchAll(pattern)) {
      const name = match[1] ?? match[2]?.replaceAll('""', '"') ?? match[3] ?? match[4];
      if (name) found.add(name);
    }
  }
  if (found.size === 0 && writes) return [ALL_TABLES];
  return [...found];
}

/** Notes the tables written through `database` between `start()` and `take()`. */
export class WrittenTables {
  private written = new Set<string>();
  /** The database to give the local logic: `inner`, noting each writing statement's tables. */
  readonly database: SqlDatabase;

  constructor(private readonly inner: SqlDatabase) {
    this.database = recording(inner, (tables) => {
      for (const table of tables) this.written.add(table);
    });
  }

  start(): void {
    this.written = new Set();
  }

  /**
   * The tables written since `start()` that are tables now (a staging or shadow table dropped at
   * the end of a sync is not one a query can read), sorted; `[ALL_TABLES]` when one write's target
   * was not known. Read while the lease is still held.
   */
  take(): string[] {
    const written = this.written;
    this.written = new Set();
    if (written.has(ALL_TABLES)) return [ALL_TABLES];
    if (written.size === 0) return [];
    const tables = new Set(
      (
        this.inner.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").raw().all() as string[][]
      ).map(([name]) => name),
    );
    return [...written].filter((name) => tables.has(name as string)).sort();
  }
}

function recording(inner: SqlDatabase, note: (tables: readonly string[]) => void): SqlDatabase {
  return {
    prepare(sql) {
      return recordingStatement(inner.prepare(sql), sql, note);
    },
    exec(sql) {
      const result = inner.exec(sql);
      // exec is the library's own DDL and fixed statements: split at ';' (none is inside a literal).
      for (const one of sql.split(';')) note(tablesWritten(one, WRITES.test(one)));
      return result;
    },
    transaction: (fn) => inner.transaction(fn),
    function: (name, options, fn) => inner.function(name, options, fn),
    pragma: (source, options) => inner.pragma(source, options),
    close: () => inner.close(),
  };
}

function recordingStatement(
  inner: SqlStatement,
  sql: string,
  note: (tables: readonly string[]) => void,
): SqlStatement {
  // Decided once per statement: SQLite says whether it writes (sqlite3_stmt_readonly).
  const tables = inner.readonly ? [] : tablesWritten(sql, true);
  const noted = <T>(result: T): T => {
    if (tables.length > 0) note(tables);
    return result;
  };
  const statement: SqlStatement = {
    // A run that changed no row (temp-id replacement tries every table) changed nothing to re-read.
    run: (...params: SqlParameters) => {
      const result = inner.run(...params);
      return result.changes > 0 ? noted(result) : result;
    },
    get: (...params: SqlParameters) => noted(inner.get(...params)),
    all: (...params: SqlParameters) => noted(inner.all(...params)),
    raw(toggle?: boolean) {
      inner.raw(toggle);
      return this;
    },
    get reader() {
      return inner.reader;
    },
    get readonly() {
      return inner.readonly;
    },
  };
  return statement;
}
