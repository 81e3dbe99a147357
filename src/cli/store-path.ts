import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FileStore } from '../local/files.js';
import { privateFolder } from '../local/private-path.js';
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
export function openStore(solutionRoot: string, db: string | undefined): LocalStore {
  return new LocalStore(db ? resolve(db) : join(stateFolder(solutionRoot), 'local.db'));
}

/** The file store beside the database: `<state folder>/files`. */
export function openFiles(store: LocalStore): FileStore {
  return new FileStore(join(dirname(store.file), 'files'));
}
