import type { SqlDatabase as Database, SqlStatement as Statement } from './database.js';
import { databaseError, QueryError, QueryNotAllowedError, QueryNotReadOnlyError } from './errors.js';

// What restfn checks of a definition's (or a user's) SQL statement before and while SQLite runs it:
// shared by queries (queries.ts) and execute-sql operations (stage.ts).

/**
 * A definition's (or a user's) statement prepared as the store allows it: SQLite's refusals coded,
 * then only reads on a read-only store and no connection changes on a confined one. Every
 * statement an author or user wrote is prepared here (queries and execute-sql operations).
 */
export function prepareChecked(
  store: {
    readonly file: string;
    readonly db: Database;
    readonly readOnly?: boolean;
    readonly confined?: boolean;
  },
  statement: string,
): Statement {
  const prepared = guarded(store, statement, () => store.db.prepare(statement));
  if (store.readOnly) refuseWrites(prepared, statement);
  if (store.confined) refuseConnectionChanges(store.db, prepared, statement);
  return prepared;
}

/**
 * Runs a step of a statement, turning SQLite's failures into coded errors: a statement SQLite
 * rejects (`SQLITE_ERROR`: syntax, unknown column; better-sqlite3's RangeError: no statement or
 * several) is QUERY_FAILED with the statement quoted; a database that is locked, damaged or not
 * SQLite at all is a DATABASE_* error.
 */
export function guarded<T>(store: { readonly file: string }, statement: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (error instanceof RangeError || code === 'SQLITE_ERROR' || code === 'SQLITE_RANGE') {
      const message = (error as Error).message.replace(/^The supplied SQL string /, 'it ');
      throw new QueryError(`SQLite rejected the statement ${excerpt(statement)}: ${message}`, {
        cause: error,
      });
    }
    if (code?.startsWith('SQLITE_')) throw databaseError(store.file, error);
    throw error;
  }
}

function excerpt(statement: string): string {
  const text = statement.trim().replace(/\s+/g, ' ');
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text);
}

/**
 * Only statements that read may run on a read-only store: SQLite says whether a prepared statement
 * returns rows (`reader`) and whether it writes the database (`readonly`). ATTACH and DETACH count as
 * read-only for SQLite (they change the connection, not the file) but return no rows, so `reader`
 * refuses them, with BEGIN, VACUUM INTO and every write; `DELETE ... RETURNING` reads but writes.
 * A PRAGMA that assigns (`PRAGMA x = y`) is refused too, even where SQLite calls it read-only.
 */
export function refuseWrites(prepared: Statement, statement: string): void {
  if (prepared.reader && prepared.readonly && !PRAGMA_ASSIGNMENT.test(withoutComments(statement))) return;
  throw new QueryNotReadOnlyError(
    `restfn query only reads, and ${excerpt(statement)} would change the database or attach another one; run SELECT (or WITH, VALUES, a reading PRAGMA), and change rows with 'restfn sync' or a function's operations`,
  );
}

const PRAGMA_ASSIGNMENT = /^\s*PRAGMA\b[^;]*=/i;

/**
 * A confined store (a datasource preview on the platform: an in-memory database in a sandbox
 * process) runs the author's reads and writes of tables, and nothing that changes the connection:
 * ATTACH (it opens any SQLite file the process can read), VACUUM INTO (it writes one), PRAGMA, and
 * transactions (the sync holds its own). SQLite says which statements do not write the database and
 * return no rows (`readonly` without `reader`: ATTACH, DETACH, a deferred BEGIN, SAVEPOINT...); a
 * `BEGIN IMMEDIATE` or `EXCLUSIVE` takes a write lock, so `readonly` is false for it: SQLite's
 * bytecode tells every transaction statement (`controlsTransaction`). PRAGMA and VACUUM are known
 * by their first keyword, which better-sqlite3's one-statement rule makes the statement's kind.
 */
export function refuseConnectionChanges(db: Database, prepared: Statement, statement: string): void {
  const keyword = /^[A-Za-z]+/.exec(withoutLeadingNoise(statement))?.[0]?.toUpperCase();
  const changesConnection =
    (prepared.readonly && !prepared.reader) || (!prepared.reader && controlsTransaction(db, statement));
  if (!changesConnection && keyword !== 'PRAGMA' && keyword !== 'VACUUM') return;
  throw new QueryNotAllowedError(
    `the statement ${excerpt(statement)} changes the database connection (${keyword ?? 'unknown'}), which a preview on the platform does not run; keep a definition's SQL to SELECT, INSERT, UPDATE, DELETE and CREATE`,
  );
}

/**
 * Whether SQLite compiles the statement into a transaction's control, in any spelling (BEGIN
 * DEFERRED/IMMEDIATE/EXCLUSIVE [TRANSACTION], COMMIT, END, ROLLBACK [TO], SAVEPOINT, RELEASE): its
 * program (EXPLAIN's) holds an `AutoCommit` or a `Savepoint` instruction, which nothing else
 * compiles to. SQLite's grammar gives these statements no parameters: one that has parameters
 * (EXPLAIN cannot run it without their values) is none of them.
 */
export function controlsTransaction(db: Database, statement: string): boolean {
  let program: unknown[][];
  try {
    program = db
      .prepare(`EXPLAIN ${withoutLeadingNoise(statement)}`)
      .raw()
      .all() as unknown[][];
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
  return program.some((row) => row[1] === 'AutoCommit' || row[1] === 'Savepoint');
}

/** What may stand before a statement's first keyword: spaces, comments and empty statements. */
function withoutLeadingNoise(statement: string): string {
  return statement.replace(/^(?:\s|;|--[^\n]*(?:\n|$)|\/\*[\s\S]*?(?:\*\/|$))*/, '');
}

/** The statement without SQL comments, so a comment cannot hide the statement's first keyword. */
function withoutComments(statement: string): string {
  return statement.replace(/--[^\n]*|\/\*[\s\S]*?(\*\/|$)/g, ' ');
}
