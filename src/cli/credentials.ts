import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadKey } from '../auth/key.js';
import { StoreCredentialProvider } from '../auth/provider.js';
import { CredentialStore } from '../auth/store.js';
import { SYSTEM_CLOCK } from '../errors/clock.js';
import { stateFolder } from './state-folder.js';

/** A solution's credentials live encrypted in its state folder; the key lives elsewhere (auth/key.ts). */
export function openCredentials(solutionRoot: string, create = false): CredentialStore {
  // The key is loaded when a value is first read or written: looking up a credential that was never
  // stored needs none, so it reports CREDENTIAL_NOT_FOUND rather than a missing key.
  const folder = stateFolder(solutionRoot);
  const store = new CredentialStore(join(folder, 'credentials.db'), () => loadKey({ create }));
  const legacy = join(folder, 'credentials.json');
  if (existsSync(legacy)) store.importLegacyFile(legacy);
  return store;
}

/** The provider run and sync use: the store is opened only when a function names a credential. */
export function credentialProvider(solutionRoot: string): StoreCredentialProvider {
  return new StoreCredentialProvider(() => openCredentials(solutionRoot), SYSTEM_CLOCK);
}
