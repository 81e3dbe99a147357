import { RestfnError } from '../errors/restfn-error.js';

/**
 * SQLite rejected a statement (syntax, an unknown column, more than one statement): the statement
 * is wrong, not the database. The CLI exits 3 when the statement comes from a definition and 2 when
 * the user typed it (`restfn query`).
 */
export class QueryError extends RestfnError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('QUERY_FAILED', message, options);
  }
}

/** `restfn query` only reads: a statement that would change the database or attach another one. */
export class QueryNotReadOnlyError extends RestfnError {
  constructor(message: string) {
    super('QUERY_NOT_READ_ONLY', message);
  }
}

/**
 * A statement a confined store does not run (a datasource preview on the platform): it would change
 * the connection rather than the tables, so it could reach a file or lift a limit.
 */
export class QueryNotAllowedError extends RestfnError {
  constructor(message: string) {
    super('QUERY_NOT_ALLOWED', message);
  }
}

export type DatabaseErrorCode = 'DATABASE_NOT_FOUND' | 'DATABASE_INVALID' | 'DATABASE_UNAVAILABLE';

/** The local database file is missing, is not SQLite, or cannot be opened or locked. */
export class DatabaseError extends RestfnError {
  constructor(
    code: DatabaseErrorCode,
    message: string,
    /** The database file, when known. */
    readonly file: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/**
 * What went wrong with the database file, from SQLite's or the file system's code: a pure decision,
 * so every place that opens or uses a database reports the same code with the same advice.
 */
export function classifyDatabaseFailure(code: string | undefined): {
  code: DatabaseErrorCode;
  problem: string;
  fix: string;
} {
  switch (code) {
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return {
        code: 'DATABASE_INVALID',
        problem: 'is not a SQLite database (or it is damaged)',
        fix: "point --db at the database restfn sync writes; if it is that one, keep the damaged file (its queued commands are changes not yet sent: 'sqlite3 FILE .recover' may save them), move it away and sync again",
      };
    case 'EISDIR':
      return { code: 'DATABASE_INVALID', problem: 'is a folder', fix: 'pass a file path with --db' };
    case 'ENOENT':
      return { code: 'DATABASE_NOT_FOUND', problem: 'does not exist', fix: 'check the path' };
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return {
        code: 'DATABASE_UNAVAILABLE',
        problem: 'is locked by another process',
        fix: 'wait for the other restfn command to finish and try again',
      };
    default:
      return {
        code: 'DATABASE_UNAVAILABLE',
        problem: `cannot be opened or written${code ? ` (${code})` : ''}`,
        fix: 'check that its folder exists and that you may read and write there',
      };
  }
}

/** A coded error for a failure of the database `file`; `error` is SQLite's or the file system's. */
export function databaseError(file: string, error: unknown): DatabaseError {
  const { code, problem, fix } = classifyDatabaseFailure((error as { code?: string })?.code);
  return new DatabaseError(code, `the local database ${file} ${problem}; ${fix}`, file, { cause: error });
}

/** A value a conversion cannot read, or a decoder that is not available (exit code 1). */
export class ConversionError extends RestfnError {
  constructor(code: 'CONVERSION_INPUT' | 'CONVERSION_UNAVAILABLE', message: string) {
    super(code, message);
  }
}
