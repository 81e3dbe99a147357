import { createHash, randomBytes } from 'node:crypto';

/** API tokens start with this, so a leaked one is recognisable (secret scanners, logs). */
export const TOKEN_PREFIX = 'rfn_';

/** A new API token: 32 random bytes. Shown once; only `hashToken` of it is stored. */
export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * A token's stored form. A token has 256 bits of entropy, so a fast hash is enough (a slow one like
 * argon2 is for passwords people choose) and lets the lookup be an index probe.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
