import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Files that can hold tokens or personal data (the credential store, the local database, stored
 * files) are readable by their owner only. SQLite creates its journal and WAL files with the mode
 * of the database file, so creating the database 0600 before SQLite opens it covers those too.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_FOLDER_MODE = 0o700;

/** Creates `folder` (and missing parents) owner-only; tightens it when it exists with a looser mode. */
export function privateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  tighten(folder, PRIVATE_FOLDER_MODE);
}

/**
 * Makes sure `file` exists with mode 0600 before anything writes to it. Its folder is created
 * owner-only when missing, but an existing folder is left as it is: it may be the user's own
 * (`--db ~/data/app.db`).
 */
export function privateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  if (!existsSync(file)) closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  tighten(file, PRIVATE_FILE_MODE);
}

function tighten(path: string, mode: number): void {
  if ((statSync(path).mode & 0o777 & ~mode) !== 0) chmodSync(path, mode);
}
