import { dirname, join, resolve } from 'node:path';
import { FileStore } from '../local/files.js';
import { LocalStore } from '../local/store.js';

/** The device-side state folder of a solution (conventions.md): `<solution>/.restfn/`. */
export const STATE_FOLDER = '.restfn';

/** `--db FILE`, else `<solution>/.restfn/local.db`. */
export function openStore(solutionRoot: string, db: string | undefined): LocalStore {
  return new LocalStore(db ? resolve(db) : join(solutionRoot, STATE_FOLDER, 'local.db'));
}

/** The file store beside the database: `<state folder>/files`. */
export function openFiles(store: LocalStore): FileStore {
  return new FileStore(join(dirname(store.file), 'files'));
}
