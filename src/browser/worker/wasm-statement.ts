import type { SqlParameters, SqlRunResult, SqlStatement } from '../../local/database.js';
import { bindParameters } from './binding.js';
import type { OoStatement } from './sqlite-api.js';
import type { WasmDatabase } from './wasm-database.js';

/**
 * A prepared statement of a `WasmDatabase`, as better-sqlite3's `Statement` behaves. It keeps its
 * SQL: when the database's connection was closed and opened again (the lease handed the files to
 * another tab and took them back), the first use after it prepares the statement again on the new
 * connection, so statements the local logic prepared once (LocalStore's cache, CommandQueue's)
 * outlive a hand-over.
 */
export class WasmStatement implements SqlStatement {
  readonly reader: boolean;
  readonly readonly: boolean;
  private handle: OoStatement;
  private generation: number;
  private rawRows = false;

  constructor(
    private readonly database: WasmDatabase,
    readonly source: string,
    options: { readonly pragma?: boolean } = {},
  ) {
    const compiled = database.compile(source, this);
    this.handle = compiled.handle;
    this.generation = database.generation;
    // A PRAGMA always returns rows for better-sqlite3 (`pragma()` reads them even when SQLite has none).
    this.reader = compiled.reader || options.pragma === true;
    this.readonly = compiled.readonly;
  }

  run(...params: SqlParameters): SqlRunResult {
    return this.database.guard(() => {
      const handle = this.bound(params);
      const before = this.database.totalChanges();
      try {
        handle.step();
      } finally {
        this.database.reset(handle);
      }
      return this.database.runResult(before);
    });
  }

  get(...params: SqlParameters): unknown {
    this.requireReader();
    return this.database.guard(() => {
      const handle = this.bound(params);
      try {
        return handle.step() ? this.row(handle, columnNames(handle)) : undefined;
      } finally {
        this.database.reset(handle);
      }
    });
  }

  all(...params: SqlParameters): unknown[] {
    this.requireReader();
    return this.database.guard(() => {
      const handle = this.bound(params);
      const rows: unknown[] = [];
      try {
        const names = columnNames(handle);
        while (handle.step()) rows.push(this.row(handle, names));
      } finally {
        this.database.reset(handle);
      }
      return rows;
    });
  }

  raw(toggle = true): this {
    if (!this.reader) throw new TypeError('The raw() method is only for statements that return data');
    this.rawRows = toggle;
    return this;
  }

  /** Finalizes the handle now instead of when the statement is collected (pragma() uses it once). */
  finalize(): void {
    this.database.finalize(this.handle);
  }

  /** The current handle, prepared again if the connection changed since, with `params` bound. */
  private bound(params: SqlParameters): OoStatement {
    if (this.generation !== this.database.generation) {
      this.handle = this.database.compile(this.source, this).handle;
      this.generation = this.database.generation;
    }
    const handle = this.handle;
    try {
      bindParameters(this.database.api, handle, params);
    } catch (error) {
      handle.clearBindings();
      throw error;
    }
    return handle;
  }

  private row(handle: OoStatement, names: readonly string[]): unknown {
    if (this.rawRows) return names.map((_, index) => columnValue(handle, index));
    const row: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index++) row[names[index]!] = columnValue(handle, index);
    return row;
  }

  private requireReader(): void {
    this.database.requireOpen();
    if (!this.reader) throw new TypeError('This statement does not return data. Use run() instead');
  }
}

function columnNames(handle: OoStatement): string[] {
  const names: string[] = [];
  for (let index = 0; index < handle.columnCount; index++) names.push(handle.getColumnName(index));
  return names;
}

/**
 * A column's value as better-sqlite3 returns it without `safeIntegers`: INTEGER as a JS number
 * (sqlite-wasm gives a bigint past 2^53), REAL a number, TEXT a string, BLOB bytes, NULL null.
 */
function columnValue(handle: OoStatement, index: number): unknown {
  const value = handle.get(index);
  return typeof value === 'bigint' ? Number(value) : value;
}
