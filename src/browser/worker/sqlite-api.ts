// The part of @sqlite.org/sqlite-wasm this folder uses, typed here: the package's own declarations
// leave out some of it (Stmt.wrapHandle, wasm.pstack) and type the rest loosely, and one small
// interface is easier to check against the package when it is upgraded.

export type WasmPointer = number;

/** An oo1 prepared statement (sqlite-wasm's `Stmt`). */
export interface OoStatement {
  readonly pointer: WasmPointer | undefined;
  readonly columnCount: number;
  bind(index: number, value: string | bigint | Uint8Array | null): this;
  clearBindings(): this;
  step(): boolean;
  resetNoThrow(alsoClearBindings?: boolean): number;
  get(index: number): unknown;
  getColumnName(index: number): string;
  finalize(): number | undefined;
}

/** An oo1 connection (sqlite-wasm's `DB`). */
export interface OoDatabase {
  readonly pointer: WasmPointer | undefined;
  exec(sql: string): this;
  close(): void;
  createFunction(options: {
    name: string;
    xFunc: (context: WasmPointer, ...args: unknown[]) => unknown;
    arity: number;
    deterministic?: boolean;
  }): this;
}

export interface SahPool {
  readonly vfsName: string;
  readonly OpfsSAHPoolDb: new (filename: string) => OoDatabase;
  pauseVfs(): SahPool;
  unpauseVfs(): Promise<SahPool>;
  isPaused(): boolean;
}

export interface SqliteApi {
  readonly oo1: {
    readonly DB: new (filename: string, flags?: string) => OoDatabase;
    readonly Stmt: { wrapHandle(db: OoDatabase, pointer: WasmPointer, takeOwnership: boolean): OoStatement };
  };
  readonly SQLite3Error: new (...args: never[]) => Error & { resultCode: number };
  readonly capi: {
    sqlite3_prepare_v3(
      db: WasmPointer,
      sql: WasmPointer,
      bytes: number,
      flags: number,
      statementOut: WasmPointer,
      tailOut: WasmPointer,
    ): number;
    sqlite3_errmsg(db: WasmPointer): string;
    sqlite3_js_rc_str(rc: number): string | undefined;
    sqlite3_extended_errcode(db: WasmPointer): number;
    sqlite3_stmt_readonly(statement: WasmPointer): number;
    sqlite3_column_count(statement: WasmPointer): number;
    sqlite3_bind_parameter_count(statement: WasmPointer): number;
    sqlite3_bind_parameter_name(statement: WasmPointer, index: number): string | null;
    sqlite3_bind_double(statement: WasmPointer, index: number, value: number): number;
    sqlite3_bind_null(statement: WasmPointer, index: number): number;
    sqlite3_total_changes(db: WasmPointer): number;
    sqlite3_next_stmt(db: WasmPointer, statement: WasmPointer): WasmPointer;
    sqlite3_changes(db: WasmPointer): number;
    sqlite3_last_insert_rowid(db: WasmPointer): bigint | number;
    sqlite3_get_autocommit(db: WasmPointer): number;
    sqlite3_result_double(context: WasmPointer, value: number): void;
    sqlite3_result_js(context: WasmPointer, value: unknown): void;
    sqlite3_result_error(context: WasmPointer, message: string, bytes: number): void;
    readonly SQLITE_OK: number;
  };
  readonly wasm: {
    readonly pstack: {
      readonly pointer: WasmPointer;
      alloc(bytes: number): WasmPointer;
      restore(pointer: WasmPointer): void;
    };
    readonly ptr: { readonly size: number };
    jstrlen(text: string): number;
    jstrcpy(text: string, heap: Uint8Array, offset: WasmPointer, max: number, addNul: boolean): number;
    heap8u(): Uint8Array;
    peekPtr(pointer: WasmPointer): WasmPointer;
    pokePtr(pointer: WasmPointer, value: WasmPointer): void;
    alloc(bytes: number): WasmPointer;
    dealloc(pointer: WasmPointer): void;
  };
  installOpfsSAHPoolVfs(options: {
    name?: string;
    directory?: string;
    initialCapacity?: number;
    clearOnInit?: boolean;
  }): Promise<SahPool>;
}

let loading: Promise<SqliteApi> | undefined;

/** SQLite's WebAssembly module, loaded once per worker (its `sqlite3.wasm` sits beside the bundle). */
export function loadSqlite(): Promise<SqliteApi> {
  // Imported when first needed: the client's build puts SQLite's JavaScript in a chunk of its own.
  loading ??= import('@sqlite.org/sqlite-wasm').then((m) =>
    (m.default as unknown as () => Promise<SqliteApi>)(),
  );
  return loading;
}
