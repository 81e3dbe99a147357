import { PlatformError } from '../errors.js';

/**
 * A write the platform's data refused because there is no room or it is read-only, in any of the
 * places it writes: SQLite (`SQLITE_FULL`, `SQLITE_READONLY*`, `SQLITE_IOERR*`), the file system
 * (version folders, scratch folders: `ENOSPC`, `EDQUOT`, `EROFS`), PostgreSQL (53100 disk_full,
 * 58030 io_error, 25006 read-only transaction, "could not extend file"). The engine's word for it,
 * or undefined for any other failure.
 */
export function writeFailureOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = (error as { message?: unknown } | undefined)?.message;
  if (typeof code === 'string') {
    if (
      code === 'SQLITE_FULL' ||
      code.startsWith('SQLITE_READONLY') ||
      code.startsWith('SQLITE_IOERR') ||
      ['ENOSPC', 'EDQUOT', 'EROFS'].includes(code)
    )
      return code;
    if (code === '53100' || code === '58030' || code === '25006') return `SQLSTATE ${code}`;
  }
  if (typeof message === 'string' && /could not extend file/.test(message)) return 'could not extend file';
  return undefined;
}

/**
 * `STORE_FULL` for a write failure (`writeFailureOf`): what failed and what the operator does. No
 * path is named (the answer goes to API clients); the server's log has the data folder.
 */
export function storeFullError(cause: string): PlatformError {
  return new PlatformError(
    'STORE_FULL',
    `the platform cannot write its data (${cause}): the disk of its data folder (--data) or its database is full or read-only. Nothing was changed; the operator frees space (or removes old versions with --keep-versions), then try again`,
  );
}

/** The error to throw: a write failure becomes `STORE_FULL`, anything else stays what it is. */
export function asStoreFull(error: unknown): unknown {
  const cause = writeFailureOf(error);
  return cause ? storeFullError(cause) : error;
}
