import type { CredentialKind } from '../definition/credential-params.js';
import type { ParameterLocation as Location } from '../definition/schema/parameter.js';
import { CredentialError } from '../errors/credential-error.js';

/** A credential parameter as the function names it. */
export interface CredentialRequest {
  readonly parameter: string;
  readonly kind: CredentialKind;
  /** The credential key (the parameter's value). */
  readonly key: string;
  readonly location: Location;
  /** Set on a 401 retry: the current token was refused, get a fresh one. */
  readonly refresh?: boolean;
  /**
   * The calling user's id (`@ctx.user.id`): on the platform, an authorization-code credential's
   * tokens are that user's connection.
   */
  readonly user?: string;
}

/** Where the credential's value goes: one or more placed values (an Authorization header, a query value, ...). */
export interface AppliedCredential {
  readonly values: ReadonlyArray<{ name: string; location: Location; value: string }>;
  /**
   * The origins (`https://api.example.com`) the values may be sent to; undefined: any (a device
   * credential stored without `--origin`).
   */
  readonly origins?: readonly string[];
}

/**
 * Turns credential keys into values at call time. `StoreCredentialProvider` (provider.ts) reads the
 * encrypted store; a runtime created without one fails functions that name credentials (exit 4).
 */
export interface CredentialProvider {
  apply(request: CredentialRequest, signal?: AbortSignal): Promise<AppliedCredential>;
}

export const NO_CREDENTIALS: CredentialProvider = {
  async apply(request) {
    throw new CredentialError(
      'CREDENTIAL_UNAVAILABLE',
      `parameter '${request.parameter}' needs the credential '${request.key}', and no credential store is configured`,
    );
  },
};
