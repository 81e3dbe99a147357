import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stateFolder } from '../local/state-folder.js';
import { loadKey } from './key.js';
import { CredentialStore } from './store.js';

/**
 * A solution's credentials on this machine: encrypted in its state folder
 * (`<solution>/.restfn/credentials.db`), the key elsewhere (auth/key.ts). What `restfn credentials
 * set` writes, and what the CLI and the library read.
 */
export function openCredentials(solutionRoot: string, create = false): CredentialStore {
  // The key is loaded when a value is first read or written: looking up a credential that was never
  // stored needs none, so it reports CREDENTIAL_NOT_FOUND rather than a missing key.
  const folder = stateFolder(solutionRoot);
  const store = new CredentialStore(join(folder, 'credentials.db'), () => loadKey({ create }));
  const legacy = join(folder, 'credentials.json');
  if (existsSync(legacy)) store.importLegacyFile(legacy);
  return store;
}
