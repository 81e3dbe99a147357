import type { Credential } from '../../auth/store.js';

/**
 * What storing a credential again may do, decided from what was stored, what is given, how many
 * users are connected to it, and whether an admin asks: a pure decision (the vault does the I/O).
 *
 * Users' connections hold their tokens for one client at one provider, sent to the credential's
 * origins: whoever changes where they go (the client, an endpoint, the origins) or who holds the
 * client (its secret) takes every connected user's token along. An author is refused that while
 * anyone is connected; an admin may, and the connections are dropped (users connect again), except
 * a new client secret with nothing else changed (a rotation at the provider: same client).
 *
 * Only an admin widens a credential's reach (any kind): an author who could add an origin could
 * have the value sent anywhere. A credential stored before origins existed is sent nowhere (the
 * transport refuses it), so any origin given to it is a widening: an admin stores it again.
 */
export type CredentialChange =
  | { readonly allowed: true; readonly dropConnections: boolean }
  | { readonly allowed: false; readonly code: 'CREDENTIAL_IN_USE' | 'FORBIDDEN'; readonly message: string };

export interface ChangeRequest {
  readonly key: string;
  /** What is stored now; undefined for a new credential. */
  readonly before: Credential | undefined;
  /** What would be stored, its origins bound (given, or those of the published functions). */
  readonly after: Credential;
  /** Users connected to the credential now. */
  readonly connections: number;
  readonly admin: boolean;
}

export function credentialChange({
  key,
  before,
  after,
  connections,
  admin,
}: ChangeRequest): CredentialChange {
  // A new credential: its first origins are its author's (connections of a removed one are gone).
  if (before === undefined) return { allowed: true, dropConnections: connections > 0 };
  const changed = connectionFieldsChanged(before, after);
  const secretChanged = clientSecretChanged(before, after);
  if (connections > 0 && !admin && (changed.length > 0 || secretChanged)) {
    const what = [...changed, ...(secretChanged ? ['clientSecret'] : [])].join(', ');
    return {
      allowed: false,
      code: 'CREDENTIAL_IN_USE',
      message: `credential '${key}': ${connections} user(s) are connected to it, and this changes its ${what}: only an admin may change the client, endpoints, origins or client secret of a credential in use, and every connection is then dropped (users connect again). Store it with the same settings, or ask an admin`,
    };
  }
  const added = addedOrigins(before, after);
  if (added.length > 0 && !admin) {
    const had = before.origins?.length
      ? `its origins are ${before.origins.join(', ')}`
      : 'it was stored before origins existed and is sent nowhere';
    return {
      allowed: false,
      code: 'FORBIDDEN',
      message: `credential '${key}': only an admin may add an origin to a credential; ${added.join(', ')} is not one of them (${had}). Store it with the origins it has (or fewer), or ask an admin to add ${added.length > 1 ? 'them' : 'it'}`,
    };
  }
  // A new client secret alone keeps connections (rotation); anything else drops them.
  return { allowed: true, dropConnections: connections > 0 && changed.length > 0 };
}

/**
 * What a user's connection belongs to: the client at the provider, where its tokens go (token,
 * revocation endpoints, origins) and come from. One string, so a connect flow can remember it and
 * find the credential changed meanwhile. Not the client secret: a rotation keeps connections.
 */
export function connectionBinding(c: Credential): string {
  return JSON.stringify([c.kind, ...bindingFields(c).map(([, value]) => value)]);
}

/** The fields users' connections depend on, but the secret, by name: those that differ. */
function connectionFieldsChanged(a: Credential, b: Credential): string[] {
  if (a.kind !== b.kind) return ['kind'];
  const after = new Map(bindingFields(b));
  return bindingFields(a)
    .filter(([name, value]) => after.get(name) !== value)
    .map(([name]) => name);
}

function bindingFields(c: Credential): Array<[string, string]> {
  const origins: [string, string] = ['origins', c.origins ? [...c.origins].sort().join(' ') : ''];
  if (c.kind !== 'oauth') return [origins];
  return [
    ['clientId', c.clientId],
    ['tokenEndpoint', c.tokenEndpoint],
    ['authorizationEndpoint', c.authorizationEndpoint ?? ''],
    ['revocationEndpoint', c.revocationEndpoint ?? ''],
    ['issuer', c.issuer ?? ''],
    ['redirectUri', c.redirectUri ?? ''],
    origins,
  ];
}

/** Removing the secret or giving another counts; giving the same one again does not. */
function clientSecretChanged(a: Credential, b: Credential): boolean {
  return a.kind === 'oauth' && b.kind === 'oauth' && a.clientSecret !== b.clientSecret;
}

/** The origins `after` is bound to that `before` was not (none recorded: bound to nowhere). */
function addedOrigins(before: Credential, after: Credential): string[] {
  const had = new Set(before.origins ?? []);
  return (after.origins ?? []).filter((o) => !had.has(o));
}
