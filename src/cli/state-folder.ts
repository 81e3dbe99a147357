import { dirname, join, resolve } from 'node:path';
import { FileStore } from '../local/files.js';
import { stateFolder } from '../local/state-folder.js';
import type { LocalStore } from '../local/store.js';

// The paths of a solution's state folder, apart from the database openers (store-path.ts), which
// load SQLite: `restfn run` of a function that keeps nothing locally never loads it.

export { STATE_FOLDER, stateFolder } from '../local/state-folder.js';

/** `--db FILE`, else `<solution>/.restfn/local.db`. */
export function databasePath(solutionRoot: string, db: string | undefined): string {
  return db ? resolve(db) : join(stateFolder(solutionRoot), 'local.db');
}

/** The file store beside the database: `<state folder>/files`. */
export function openFiles(store: LocalStore): FileStore {
  return new FileStore(join(dirname(store.file), 'files'));
}
