import { databaseError } from '../local/errors.js';
import { ReadOnlyStore } from '../local/read-only-store.js';
import { SqliteUnavailableError } from '../local/sqlite.js';
import { LocalStore } from '../local/store.js';
import { databasePath } from './state-folder.js';

export { databasePath, openFiles, STATE_FOLDER, stateFolder } from './state-folder.js';

/** The local database for run and sync, created when missing; a file that is not one is a coded error. */
export function openStore(solutionRoot: string, db: string | undefined): LocalStore {
  const file = databasePath(solutionRoot, db);
  try {
    return new LocalStore(file);
  } catch (error) {
    if (error instanceof SqliteUnavailableError) throw error;
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
