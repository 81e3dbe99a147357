import Database from 'better-sqlite3';
import { RestfnError } from '../errors/restfn-error.js';

/**
 * SQLite's native module did not load: better-sqlite3 finds its compiled addon (better_sqlite3.node)
 * only when the first database is opened. A copy of restfn without it (the VS Code extension's own
 * server, bundled without native code) or built for another Node (another ABI) still validates,
 * completes and navigates; what needs a database says so with this code instead of a bug report.
 */
export class SqliteUnavailableError extends RestfnError {
  constructor(cause: unknown) {
    const reason = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0];
    super(
      'SQLITE_UNAVAILABLE',
      `Run, Sync and stored credentials need restfn installed: \`npm install restfn\` in the solution's folder (or, in VS Code, set restfn.path to a restfn executable). This copy of restfn cannot load SQLite's native module (${reason})`,
      { cause },
    );
  }
}

/** `new Database(file, options)`, with a native module that does not load as `SQLITE_UNAVAILABLE`. */
export function openDatabase(file: string, options?: Database.Options): Database.Database {
  try {
    return new Database(file, options);
  } catch (error) {
    if (nativeLoadFailure(error)) throw new SqliteUnavailableError(error);
    throw error;
  }
}

/** The addon is missing (`bindings` found no file) or built for another Node (dlopen failed). */
export function nativeLoadFailure(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof Database.SqliteError) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    code === 'ERR_DLOPEN_FAILED' ||
    /Could not locate the bindings file|NODE_MODULE_VERSION|better_sqlite3\.node/.test(error.message)
  );
}
