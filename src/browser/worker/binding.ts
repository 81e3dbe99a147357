import type { OoStatement, SqliteApi } from './sqlite-api.js';

// Binding a statement's parameters as better-sqlite3 does (its src/util/binder.cpp), so the local
// logic's calls mean the same on both engines: positional values (or arrays of them) fill the
// anonymous `?` parameters in order; ONE plain object fills the named ones (`@x`, `:x`, `$x`) by
// name without the prefix; numbers are bound as REAL (better-sqlite3 binds every JS number with
// sqlite3_bind_double, so `json_array(?)` of 1 is `[1.0]` on both), bigints as INTEGER, strings
// as TEXT, Uint8Array as BLOB, null and undefined as NULL; anything else (a boolean, a Date) is a
// TypeError, where sqlite-wasm itself would bind a boolean as 0 or 1.

export function bindParameters(api: SqliteApi, statement: OoStatement, args: readonly unknown[]): void {
  const pointer = statement.pointer as number;
  const count = api.capi.sqlite3_bind_parameter_count(pointer);
  const names = parameterNames(api, pointer, count);
  let anonymous = 0;
  let bound = 0;
  let boundObject = false;
  const nextAnonymous = (): number => {
    do anonymous++;
    while (anonymous <= count && names[anonymous] !== null);
    return anonymous;
  };
  const bindOne = (index: number, value: unknown): void => {
    if (index > count) throw new RangeError('Too many parameter values were provided');
    bindValue(api, statement, index, value);
  };
  for (const arg of args) {
    if (Array.isArray(arg)) {
      for (const value of arg) bindOne(nextAnonymous(), value);
      bound += arg.length;
      continue;
    }
    if (isPlainObject(arg)) {
      if (boundObject) throw new TypeError('You cannot specify named parameters in two different objects');
      boundObject = true;
      for (let index = 1; index <= count; index++) {
        const name = names[index];
        if (name === null || name === undefined) continue;
        const key = name.slice(1);
        if (!Object.hasOwn(arg, key)) throw new RangeError(`Missing named parameter "${key}"`);
        bindValue(api, statement, index, (arg as Record<string, unknown>)[key]);
        bound++;
      }
      continue;
    }
    if (typeof arg === 'object' && arg !== null && !(arg instanceof Uint8Array) && names.some((n) => n)) {
      throw new TypeError('Named parameters can only be passed within plain objects');
    }
    bindOne(nextAnonymous(), arg);
    bound++;
  }
  if (bound < count) {
    if (!boundObject && names.some((n) => n)) throw new TypeError('Missing named parameters');
    throw new RangeError('Too few parameter values were provided');
  }
  if (bound > count) throw new RangeError('Too many parameter values were provided');
}

/**
 * Index → the parameter's name with its prefix, or null for an anonymous `?`. As in better-sqlite3,
 * a numbered `?NNN` counts as named ("NNN" in the object), not as positional.
 */
function parameterNames(api: SqliteApi, pointer: number, count: number): Array<string | null> {
  const names: Array<string | null> = [null];
  for (let index = 1; index <= count; index++)
    names.push(api.capi.sqlite3_bind_parameter_name(pointer, index));
  return names;
}

function bindValue(api: SqliteApi, statement: OoStatement, index: number, value: unknown): void {
  const pointer = statement.pointer as number;
  if (typeof value === 'number') {
    api.capi.sqlite3_bind_double(pointer, index, value);
  } else if (value === null || value === undefined) {
    api.capi.sqlite3_bind_null(pointer, index);
  } else if (typeof value === 'bigint') {
    if (value > 0x7fffffffffffffffn || value < -0x8000000000000000n) {
      throw new RangeError('The bound string, buffer, or bigint is too big');
    }
    statement.bind(index, value);
  } else if (typeof value === 'string' || value instanceof Uint8Array) {
    statement.bind(index, value);
  } else {
    throw new TypeError('SQLite3 can only bind numbers, strings, bigints, buffers, and null');
  }
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
