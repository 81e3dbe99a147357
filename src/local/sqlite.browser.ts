import { RestfnError } from '../errors/restfn-error.js';
import type { SqlDatabase } from './database.js';

// The browser build: SQLite is WebAssembly in the client's worker (src/browser/worker), opened
// there and handed to LocalStore (`{ database }`); nothing opens a database by file name.

export class SqliteUnavailableError extends RestfnError {
  constructor(cause: unknown) {
    super(
      'SQLITE_UNAVAILABLE',
      `in the browser, the client opens SQLite itself (createClient from restfn/client); a database cannot be opened by file name (${String(cause)})`,
    );
  }
}

export function openDatabase(file: string, _options?: unknown): SqlDatabase {
  throw new SqliteUnavailableError(file);
}

export function nativeLoadFailure(_error: unknown): boolean {
  return false;
}
