import type { SqliteApi, WasmPointer } from './sqlite-api.js';

/**
 * A failure SQLite reported, as better-sqlite3's `SqliteError` has it: the message is SQLite's own
 * (`sqlite3_errmsg`) and `code` the result code's name, extended codes included
 * (`SQLITE_CONSTRAINT_PRIMARYKEY`, `SQLITE_BUSY`...). src/local matches on `code` (statement-checks.ts
 * `guarded()`, errors.ts `databaseError()`), so both engines must name a failure alike.
 */
export class SqliteError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'SqliteError';
  }
}

/** The error for result code `rc` of connection `db` (its message is the connection's last one). */
export function sqliteError(api: SqliteApi, db: WasmPointer, rc: number): SqliteError {
  return new SqliteError(api.capi.sqlite3_errmsg(db), codeName(api, rc));
}

/**
 * sqlite-wasm's oo1 layer throws `SQLite3Error` with `resultCode` and a message that repeats the
 * code ("SQLITE_CONSTRAINT_PRIMARYKEY: sqlite3 result code 1555: UNIQUE constraint failed: t.id");
 * this turns it into better-sqlite3's shape. Anything else is returned as it is.
 */
export function fromWasmError(api: SqliteApi, error: unknown): unknown {
  if (!(error instanceof api.SQLite3Error)) return error;
  const message = error.message.replace(/^SQLITE_[A-Z_]+: sqlite3 result code \d+: /, '');
  return new SqliteError(message, codeName(api, error.resultCode));
}

function codeName(api: SqliteApi, rc: number): string {
  return api.capi.sqlite3_js_rc_str(rc) ?? `SQLITE_UNKNOWN_${rc}`;
}
