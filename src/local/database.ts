// The one interface between restfn's local logic (the store, staging, temporary ids, the command
// queue, queries) and a SQLite connection. It is the part of better-sqlite3's API that logic uses,
// so a better-sqlite3 `Database` is one as it is (in Node); in the browser client, SQLite compiled
// to WebAssembly in a worker implements it (`src/browser/worker/wasm-database.ts`). Everything is
// synchronous, as both are: a caller can put a read, its decision and a write in one transaction.

/**
 * Values bound to a statement: positional (`?`), or one object whose keys name the statement's
 * `@name` / `:name` / `$name` parameters without their prefix (better-sqlite3's convention).
 */
export type SqlParameters = unknown[];

export interface SqlRunResult {
  /** Rows the statement inserted, updated or deleted (not counting triggers' own). */
  readonly changes: number;
  readonly lastInsertRowid: number | bigint;
}

export interface SqlStatement {
  run(...params: SqlParameters): SqlRunResult;
  /** The first row (an object by column name, or an array after `raw()`), or undefined. */
  get(...params: SqlParameters): unknown;
  all(...params: SqlParameters): unknown[];
  /** Rows as arrays of column values from now on (`raw(false)` goes back to objects). */
  raw(toggle?: boolean): this;
  /** Whether the statement returns rows (it has result columns). */
  readonly reader: boolean;
  /** Whether the statement leaves the database file unchanged (sqlite3_stmt_readonly). */
  readonly readonly: boolean;
}

type ArgumentTypes<F> = F extends (...args: infer A) => unknown ? A : never;

/** `fn` wrapped in a transaction (see `SqlDatabase.transaction`). */
// biome-ignore lint/suspicious/noExplicitAny: as above
export type SqlTransaction<F extends (...params: any[]) => unknown> = (
  ...params: ArgumentTypes<F>
) => ReturnType<F>;

export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  /** Runs one or more statements without parameters. */
  exec(sql: string): unknown;
  /**
   * Wraps `fn` so each call runs in one transaction: committed when it returns, rolled back when it
   * throws; a call inside another transaction is a savepoint of it.
   */
  // biome-ignore lint/suspicious/noExplicitAny: better-sqlite3's own bound, so its Database is one
  transaction<F extends (...params: any[]) => unknown>(fn: F): SqlTransaction<F>;
  /** Registers a scalar SQL function of this connection. */
  function(
    name: string,
    options: { readonly deterministic?: boolean },
    fn: (...args: never[]) => unknown,
  ): unknown;
  /** `PRAGMA source`; with `{ simple: true }` the first column of the first row. */
  pragma(source: string, options?: { readonly simple?: boolean }): unknown;
  close(): unknown;
}
