import type {
  AppliedCredential,
  CredentialProvider,
  CredentialRequest,
} from '../../auth/credential-provider.js';
import { StoreCredentialProvider } from '../../auth/provider.js';
import type { Clock } from '../../errors/clock.js';
import { CredentialError } from '../../errors/credential-error.js';
import type { CredentialTable } from './credential-table.js';

// Loaded (with the OAuth client) only when a function the browser calls itself names a credential:
// see lazyCredentials in session.ts.

/**
 * The worker's credential provider: Node's `StoreCredentialProvider` (bearer tokens, refreshed
 * before expiry or on a 401, a single flight per key, a rotated refresh token saved before use)
 * over the credentials table. What needs the user says so in the browser's words: a credential
 * never signed in, or whose refresh was refused, is `LOGIN_REQUIRED` naming it, for the app to
 * call `client.signIn(key)`.
 */
export function browserCredentials(table: CredentialTable, clock: Clock): CredentialProvider {
  const store = new StoreCredentialProvider(() => table, clock);
  return {
    async apply(request: CredentialRequest, signal?: AbortSignal): Promise<AppliedCredential> {
      if (request.kind !== 'oauth') {
        // Validation refuses these for useLocalCall; a function the platform runs never gets here.
        throw new CredentialError(
          'LOCAL_CALL_CREDENTIAL',
          `parameter '${request.parameter}' needs the ${request.kind} credential '${request.key}', which only the platform holds: a function the browser runs itself (useLocalCall) can use OAuth only`,
          request.key,
        );
      }
      if (!table.get(request.key)) throw signInRequired(request.key);
      try {
        return await store.apply(request, signal);
      } catch (error) {
        if (error instanceof CredentialError && error.code === 'LOGIN_REQUIRED')
          throw signInRequired(request.key, error);
        throw error;
      }
    },
  };
}

export function signInRequired(key: string, cause?: unknown): CredentialError {
  const error = new CredentialError(
    'LOGIN_REQUIRED',
    `credential '${key}' needs a sign-in on this device (a useLocalCall function calls with the user's own token): call client.signIn('${key}')`,
    key,
  );
  if (cause) Object.defineProperty(error, 'cause', { value: cause, enumerable: false });
  return error;
}
