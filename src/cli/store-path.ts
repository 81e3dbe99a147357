import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { databaseError } from '../local/errors.js';
import { FileStore } from '../local/files.js';
import { privateFolder } from '../local/private-path.js';
import { ReadOnlyStore } from '../local/read-only-store.js';
import { LocalStore } from '../local/store.js';

/** The device-side state folder of a solution (conventions.md): `<solution>/.restfn/`. */
export const STATE_FOLDER = '.restfn';

/**
 * The state folder's path. It holds tokens and personal data, so it is owner-only (0700): created
 * so by the stores, and tightened here when an older restfn left it readable by others.
 */
export function stateFolder(solutionRoot: string): string {
  const folder = join(solutionRoot, STATE_FOLDER);
  if (existsSync(folder)) privateFolder(folder);
  return folder;
}

/** `--db FILE`, else `<solution>/.restfn/local.db`. */
export function databasePath(solutionRoot: string, db: string | undefined): string {
  return db ? resolve(db) : join(stateFolder(solutionRoot), 'local.db');
}

/** The local database for run and sync, created when missing; a file that is not one is a coded error. */
export function openStore(solutionRoot: string, db: string | undefined): LocalStore {
  const file = databasePath(solutionRoot, db);
  try {
    return new LocalStore(file);
  } catch (error) {
    throw databaseError(file, error);
  }
}

/** The local database for `restfn query`: read-only, and it must exist (a typo is not a new database). */
export function openReadOnlyStore(solutionRoot: string, db: string | undefined): ReadOnlyStore {
  return new ReadOnlyStore(
    databasePath(solutionRoot, db),
    db ? 'check the --db path' : "nothing was synced yet: run 'restfn sync' first, or pass --db FILE",
  );
}

/** The file store beside the database: `<state folder>/files`. */
export function openFiles(store: LocalStore): FileStore {
  return new FileStore(join(dirname(store.file), 'files'));
}
