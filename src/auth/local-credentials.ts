import type { AppliedCredential, CredentialProvider, CredentialRequest } from './credential-provider.js';

/**
 * The provider of a solution's local credentials (auth/local-store.ts): what `createRuntime` uses
 * when given none, and the CLI. The store, SQLite and the OAuth client load only when a function
 * names a credential: a solution without any never opens, creates or loads them.
 */
export function localCredentials(solutionRoot: string): CredentialProvider {
  let provider: Promise<CredentialProvider> | undefined;
  return {
    async apply(request: CredentialRequest, signal?: AbortSignal): Promise<AppliedCredential> {
      provider ??= Promise.all([
        import('./local-store.js'),
        import('./provider.js'),
        import('../errors/clock.js'),
      ]).then(
        ([store, { StoreCredentialProvider }, { SYSTEM_CLOCK }]) =>
          new StoreCredentialProvider(() => store.openCredentials(solutionRoot), SYSTEM_CLOCK),
      );
      return (await provider).apply(request, signal);
    },
  };
}
