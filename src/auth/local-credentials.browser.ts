import { CredentialError } from '../errors/credential-error.js';
import type { AppliedCredential, CredentialProvider } from './credential-provider.js';

/**
 * The browser build has no local credential store (credentials live on the platform, or, for a
 * `useLocalCall` function, in the client's own database): the client always passes its provider,
 * so this one is reached only by a runtime created without one, and says so.
 */
export function localCredentials(_solutionRoot: string): CredentialProvider {
  return {
    async apply(request): Promise<AppliedCredential> {
      throw new CredentialError(
        'CREDENTIAL_NOT_FOUND',
        `credential '${request.key}' is not stored in this browser: sign in with client.signIn('${request.key}') (useLocalCall functions), or let the platform call the function`,
        request.key,
      );
    },
  };
}
