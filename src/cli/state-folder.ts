import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FileStore } from '../local/files.js';
import { privateFolder } from '../local/private-path.js';
import type { LocalStore } from '../local/store.js';

// The paths of a solution's state folder, apart from the database openers (store-path.ts), which
// load SQLite: `restfn run` of a function that keeps nothing locally never loads it.

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

/** The file store beside the database: `<state folder>/files`. */
export function openFiles(store: LocalStore): FileStore {
  return new FileStore(join(dirname(store.file), 'files'));
}
