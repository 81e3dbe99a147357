import { join } from 'node:path';
import { loadKey } from '../auth/key.js';
import { StoreCredentialProvider } from '../auth/provider.js';
import { CredentialStore } from '../auth/store.js';
import { SYSTEM_CLOCK } from '../errors/clock.js';
import { STATE_FOLDER } from './store-path.js';

/** A solution's credentials live encrypted in its state folder; the key lives elsewhere (auth/key.ts). */
export function openCredentials(solutionRoot: string, create = false): CredentialStore {
  // The key is loaded when a value is first read or written: looking up a credential that was never
  // stored needs none, so it reports CREDENTIAL_NOT_FOUND rather than a missing key.
  return new CredentialStore(join(solutionRoot, STATE_FOLDER, 'credentials.json'), () => loadKey({ create }));
}

/** The provider run and sync use: the store is opened only when a function names a credential. */
export function credentialProvider(solutionRoot: string): StoreCredentialProvider {
  return new StoreCredentialProvider(() => openCredentials(solutionRoot), SYSTEM_CLOCK);
}
