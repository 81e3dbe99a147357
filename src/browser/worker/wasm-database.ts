import { RestfnError } from '../../errors/restfn-error.js';
import type { SqlDatabase, SqlRunResult, SqlTransaction } from '../../local/database.js';
import type { OoDatabase, OoStatement, SqliteApi } from './sqlite-api.js';
import { fromWasmError, sqliteError } from './sqlite-error.js';
import { WasmStatement } from './wasm-statement.js';

type UserFunction = (...args: never[]) => unknown;

interface RegisteredFunction {
  readonly name: string;
  readonly deterministic: boolean;
  readonly fn: UserFunction;
}

/**
 * `SqlDatabase` (src/local/database.ts) on SQLite compiled to WebAssembly, behaving as better-sqlite3
 * does for what the local logic uses: one statement per `prepare` (RangeError otherwise), errors
 * with better-sqlite3's `code` names, numbers bound as REAL, transactions nesting as savepoints.
 *
 * The object outlives its connection: `detach()` closes the connection (the lease hands the files
 * to another tab), `attach()` gives it a new one; statements prepare again on first use, functions
 * are registered again and pragma assignments (`synchronous = NORMAL`...) are applied again, so
 * what the local logic built on it (LocalStore, CommandQueue) keeps working. Between the two, using
 * it is a DATABASE_UNAVAILABLE error: only code inside the lease may touch it.
 */
export class WasmDatabase implements SqlDatabase {
  /** Counts connections: a statement prepared on an earlier one prepares again. */
  generation = 0;
  private connection: OoDatabase | undefined;
  private closed = false;
  /** The current connection's statement handles, finalized when it closes. */
  private readonly handles = new Set<OoStatement>();
  /** A statement the caller dropped finalizes its handle when collected (LocalStore keeps a cache, stage.ts does not). */
  private readonly unreachable = new FinalizationRegistry<OoStatement>((handle) => this.finalize(handle));
  private readonly functions = new Map<string, RegisteredFunction>();
  private readonly settings = new Map<string, string>();
  private transactionStatements:
    | Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', WasmStatement>
    | undefined;
  /** A user function's exception, thrown again from the statement it failed (better-sqlite3 does). */
  private functionError: { error: unknown } | undefined;

  constructor(
    readonly api: SqliteApi,
    /** What the database is called in messages (the app's name, or ':memory:'). */
    readonly label: string,
    connection?: OoDatabase,
  ) {
    if (connection) this.attach(connection);
  }

  /** Whether a connection is attached (inside a lease). */
  get open(): boolean {
    return this.connection !== undefined;
  }

  get inTransaction(): boolean {
    return this.api.capi.sqlite3_get_autocommit(this.pointer()) === 0;
  }

  /** Gives the database a (new) connection: functions and pragma assignments are applied to it. */
  attach(connection: OoDatabase): void {
    if (this.closed) throw new TypeError('The database connection is not open');
    if (this.connection) throw new Error('WasmDatabase.attach: a connection is attached already');
    this.connection = connection;
    this.generation++;
    for (const registered of this.functions.values()) this.createFunction(registered);
    for (const source of this.settings.values()) this.pragma(source);
  }

  /** Finalizes every statement handle and returns the connection for the caller to close. */
  detach(): OoDatabase | undefined {
    const connection = this.connection;
    for (const handle of this.handles) handle.finalize();
    this.handles.clear();
    this.connection = undefined;
    return connection;
  }

  prepare(sql: string): WasmStatement {
    return new WasmStatement(this, sql);
  }

  exec(sql: string): this {
    const connection = this.requireOpen();
    this.guard(() => connection.exec(sql));
    return this;
  }

  // biome-ignore lint/suspicious/noExplicitAny: SqlDatabase's own bound (better-sqlite3's)
  transaction<F extends (...params: any[]) => unknown>(fn: F): SqlTransaction<F> {
    if (typeof fn !== 'function') throw new TypeError('Expected first argument to be a function');
    // better-sqlite3's lib/methods/transaction.js: a savepoint inside a transaction; after a failure
    // the savepoint is rolled back and released, the outer transaction goes on.
    const database = this;
    return function sqliteTransaction(this: unknown, ...args: unknown[]) {
      const s = database.transactionControl();
      const nested = database.inTransaction;
      const [before, after, undo] = nested
        ? [s.savepoint, s.release, s.rollbackTo]
        : [s.begin, s.commit, s.rollback];
      before.run();
      try {
        const result = fn.apply(this, args);
        if (result && typeof (result as { then?: unknown }).then === 'function') {
          throw new TypeError('Transaction function cannot return a promise');
        }
        after.run();
        return result;
      } catch (error) {
        if (database.open && database.inTransaction) {
          undo.run();
          if (nested) after.run();
        }
        throw error;
      }
    } as unknown as SqlTransaction<F>;
  }

  function(name: string, options: { readonly deterministic?: boolean }, fn: UserFunction): this {
    if (typeof fn !== 'function') throw new TypeError('Expected last argument to be a function');
    if (!name) throw new TypeError('User-defined function name cannot be an empty string');
    const registered = { name, deterministic: options?.deterministic === true, fn };
    if (this.connection) this.createFunction(registered);
    this.functions.set(name, registered);
    return this;
  }

  pragma(source: string, options: { readonly simple?: boolean } = {}): unknown {
    const statement = new WasmStatement(this, `PRAGMA ${source}`, { pragma: true });
    try {
      const result = options.simple ? (statement.raw().get() as unknown[] | undefined)?.[0] : statement.all();
      // A setting of the connection (once SQLite took it), applied again to the next one (attach()).
      const setting = /^\s*([\w.]+)\s*=/.exec(source)?.[1]?.toLowerCase();
      if (setting) this.settings.set(setting, source);
      return result;
    } finally {
      statement.finalize();
    }
  }

  close(): this {
    this.detach()?.close();
    this.closed = true;
    return this;
  }

  // What WasmStatement uses.

  /** The connection, or the error for using the database outside an open connection. */
  requireOpen(): OoDatabase {
    if (this.connection) return this.connection;
    if (this.closed) throw new TypeError('The database connection is not open');
    throw new RestfnError(
      'DATABASE_UNAVAILABLE',
      `the local database ${this.label} is used outside its lease (another tab may hold it); run database work inside lease.run()`,
    );
  }

  /** Prepares one statement of `sql` on the current connection, refusing none or several. */
  compile(sql: string, owner: WasmStatement): { handle: OoStatement; reader: boolean; readonly: boolean } {
    const connection = this.requireOpen();
    const { api } = this;
    const { capi, wasm } = api;
    const bytes = wasm.jstrlen(sql);
    const text = wasm.alloc(bytes + 1);
    const stack = wasm.pstack.pointer;
    let pointer = 0;
    let tail = 0;
    try {
      wasm.jstrcpy(sql, wasm.heap8u(), text, bytes, false);
      wasm.heap8u()[text + bytes] = 0;
      const out = wasm.pstack.alloc(2 * wasm.ptr.size);
      wasm.pokePtr(out, 0);
      wasm.pokePtr(out + wasm.ptr.size, 0);
      const rc = capi.sqlite3_prepare_v3(this.pointer(), text, bytes + 1, 0, out, out + wasm.ptr.size);
      if (rc !== capi.SQLITE_OK) throw sqliteError(api, this.pointer(), rc);
      pointer = wasm.peekPtr(out);
      tail = wasm.peekPtr(out + wasm.ptr.size) - text;
      if (!pointer) throw new RangeError('The supplied SQL string contains no statements');
      if (!onlyNoiseAfter(wasm.heap8u().subarray(text + tail, text + bytes))) {
        throw new RangeError('The supplied SQL string contains more than one statement');
      }
    } catch (error) {
      if (pointer) api.oo1.Stmt.wrapHandle(connection, pointer, true).finalize();
      throw error;
    } finally {
      wasm.pstack.restore(stack);
      wasm.dealloc(text);
    }
    const handle = api.oo1.Stmt.wrapHandle(connection, pointer, true);
    this.handles.add(handle);
    this.unreachable.unregister(owner);
    this.unreachable.register(owner, handle, owner);
    return {
      handle,
      reader: capi.sqlite3_column_count(pointer) > 0,
      readonly: capi.sqlite3_stmt_readonly(pointer) !== 0,
    };
  }

  /**
   * Runs a step of SQLite work, with its failures as better-sqlite3 throws them: SqliteError with
   * the code's name, or the exception a user function threw.
   */
  guard<T>(step: () => T): T {
    this.requireOpen();
    this.functionError = undefined;
    try {
      return step();
    } catch (error) {
      const thrown = this.takeFunctionError();
      if (thrown) throw thrown.error;
      throw fromWasmError(this.api, error);
    }
  }

  /** Resets a handle after its steps; a failure its reset reports (a deferred one) is thrown. */
  reset(handle: OoStatement): void {
    const rc = handle.resetNoThrow(false);
    if (rc !== this.api.capi.SQLITE_OK && !this.functionError)
      throw sqliteError(this.api, this.pointer(), rc);
  }

  totalChanges(): number {
    return this.api.capi.sqlite3_total_changes(this.pointer());
  }

  /** better-sqlite3's `run()` result: rows changed by this statement (0 when it changed none). */
  runResult(totalBefore: number): SqlRunResult {
    const { capi } = this.api;
    const changes =
      capi.sqlite3_total_changes(this.pointer()) === totalBefore ? 0 : capi.sqlite3_changes(this.pointer());
    return { changes, lastInsertRowid: Number(capi.sqlite3_last_insert_rowid(this.pointer())) };
  }

  private takeFunctionError(): { error: unknown } | undefined {
    const thrown = this.functionError;
    this.functionError = undefined;
    return thrown;
  }

  private pointer(): number {
    return this.requireOpen().pointer as number;
  }

  /** Finalizes a handle now (a statement used once, by this class). */
  finalize(handle: OoStatement): void {
    if (this.handles.delete(handle)) handle.finalize();
  }

  private transactionControl(): NonNullable<WasmDatabase['transactionStatements']> {
    this.transactionStatements ??= {
      begin: this.prepare('BEGIN'),
      commit: this.prepare('COMMIT'),
      rollback: this.prepare('ROLLBACK'),
      savepoint: this.prepare('SAVEPOINT `\t_bs3.\t`'),
      release: this.prepare('RELEASE `\t_bs3.\t`'),
      rollbackTo: this.prepare('ROLLBACK TO `\t_bs3.\t`'),
    };
    return this.transactionStatements;
  }

  /**
   * Registers `fn` on the connection with better-sqlite3's conversions: its arity is `fn.length`;
   * arguments arrive as column values do (integers as numbers); a number it returns is REAL; a
   * value SQLite cannot hold is an error of the statement; an exception it throws is thrown again
   * from the statement (see guard()).
   */
  private createFunction({ name, deterministic, fn }: RegisteredFunction): void {
    const { capi } = this.api;
    this.requireOpen().createFunction({
      name,
      arity: fn.length,
      deterministic,
      xFunc: (context, ...args) => {
        let result: unknown;
        try {
          result = (fn as (...values: unknown[]) => unknown)(
            ...args.map((value) => (typeof value === 'bigint' ? Number(value) : value)),
          );
        } catch (error) {
          this.functionError = { error };
          capi.sqlite3_result_error(context, String((error as Error)?.message ?? error), -1);
          return undefined;
        }
        if (typeof result === 'number') capi.sqlite3_result_double(context, result);
        else if (result === undefined || result === null) capi.sqlite3_result_js(context, null);
        else if (typeof result === 'string' || typeof result === 'bigint' || result instanceof Uint8Array) {
          capi.sqlite3_result_js(context, result);
        } else {
          this.functionError = {
            error: new TypeError(`User-defined function ${name}() returned an invalid value`),
          };
          capi.sqlite3_result_error(context, 'invalid value', -1);
        }
        return undefined;
      },
    });
  }
}

/** better-sqlite3's rule for what may follow the one statement: spaces, semicolons and comments. */
function onlyNoiseAfter(rest: Uint8Array): boolean {
  const SLASH = 0x2f;
  const STAR = 0x2a;
  const DASH = 0x2d;
  let i = 0;
  while (i < rest.length) {
    const c = rest[i]!;
    if (c === 0x20 || c === 0x3b || (c >= 0x09 && c <= 0x0d)) {
      i++;
    } else if (c === SLASH && rest[i + 1] === STAR) {
      i += 2;
      while (i < rest.length && !(rest[i] === STAR && rest[i + 1] === SLASH)) i++;
      i += 2;
    } else if (c === DASH && rest[i + 1] === DASH) {
      i += 2;
      while (i < rest.length && rest[i] !== 0x0a) i++;
      i++;
    } else {
      return false;
    }
  }
  return true;
}
