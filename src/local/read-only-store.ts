import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { DatabaseError, databaseError } from './errors.js';
import type { QueryStore } from './queries.js';
import { openDatabase, SqliteUnavailableError } from './sqlite.js';
import { quoteTable } from './table-name.js';

/**
 * The local database opened for reading only (`restfn query`): SQLite's read-only mode, so no
 * statement can change the file or create another one, and `runQuery` refuses statements that
 * would write (`refuseWrites`). The file must exist: a mistyped path is an error, never a new
 * empty database.
 */
export class ReadOnlyStore implements QueryStore {
  readonly db: Database.Database;
  readonly readOnly = true;

  constructor(
    readonly file: string,
    /** How to say where the path came from and what to do when it does not exist. */
    missingHint = 'check the path',
  ) {
    let isFile: boolean;
    try {
      isFile = statSync(file).isFile();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new DatabaseError('DATABASE_NOT_FOUND', `no local database at ${file}: ${missingHint}`, file, {
          cause: error,
        });
      }
      throw databaseError(file, error);
    }
    if (!isFile) throw databaseError(file, { code: 'EISDIR' });
    let db: Database.Database | undefined;
    try {
      db = openDatabase(file, { readonly: true, fileMustExist: true });
      // SQLite reads the header lazily: a file that is not a database fails here, not on the query.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (error) {
      db?.close();
      if (error instanceof SqliteUnavailableError) throw error;
      throw databaseError(file, error);
    }
    this.db = db;
  }

  /** A table a query names that was never synced reads as empty: a temporary table, in memory only. */
  ensureTable(name: string): string {
    const quoted = quoteTable(name);
    const exists = this.db
      .prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?")
      .get(name);
    if (!exists) this.db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${quoted} (id TEXT PRIMARY KEY, data JSON)`);
    return quoted;
  }

  /** All rows of a table as records (`data` parsed), in id order; none when it was never synced. */
  rows(table: string): Array<Record<string, unknown>> {
    const exists = this.db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(table);
    if (!exists) return [];
    return (
      this.db.prepare(`SELECT data FROM ${quoteTable(table)} ORDER BY id`).all() as Array<{ data: string }>
    ).map((r) => JSON.parse(r.data));
  }

  close(): void {
    this.db.close();
  }
}
