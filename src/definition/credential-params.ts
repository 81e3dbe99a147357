import type { ParameterDefinition } from './schema/index.js';

/** Bare provider names that real files use as OAuth credential kinds (`type: microsoft`). */
const BARE_OAUTH_PROVIDERS = new Set([
  'oauth',
  'microsoft',
  'google',
  'salesforce',
  'okta',
  'auth0',
  'github',
]);

export type CredentialKind = 'secret' | 'oauth';

/**
 * Whether a parameter carries a credential key rather than a value, and which kind: `secret` for
 * `type: secret`; `oauth` for `<provider>.oauth`, a bare provider name, or a parameter named
 * `accessToken` (the spec's OAuth parameter) whatever its declared type.
 */
export function credentialKind(name: string, parameter: ParameterDefinition): CredentialKind | undefined {
  const type = parameter.type?.toLowerCase();
  if (type === 'secret') return 'secret';
  if (type && (type.endsWith('.oauth') || BARE_OAUTH_PROVIDERS.has(type))) return 'oauth';
  if (name === 'accessToken') return 'oauth';
  return undefined;
}

/** Names that suggest the value is a credential. */
export const CREDENTIAL_NAME = /(api[-_]?key|apikey|token|secret|password|passwd|credential|auth)/i;

/**
 * Names that say the parameter is a credential, whatever its value looks like (`x-api-key`,
 * `apikey`, `access_token`, `Authorization`, `client_secret`...), compared without case, `-` or
 * `_`; names that merely contain a word of one (`pageToken`, `author`) are not among them.
 */
const CREDENTIAL_PARAMETER =
  /^x?(?:(?:api|app|client|access|auth|bearer|private|subscription|ocpapimsubscription)?(?:token|secret|password|passwd)|(?:api|app|client|access|auth|private|subscription|ocpapimsubscription)key|authorization)$/;

export function isCredentialParameterName(name: string): boolean {
  return CREDENTIAL_PARAMETER.test(name.toLowerCase().replace(/[-_\s]/g, ''));
}

/**
 * A literal that looks like a real secret rather than a key name: a known token prefix, or a long run
 * mixing upper case, lower case and digits with no spaces. Credential keys (`crm-api-key`) do not match.
 */
export function looksLikeSecret(value: string): boolean {
  if (/\s/.test(value)) return false;
  if (/^(sk|pk|rk)_(live|test)_|^gh[pousr]_|^xox[abpr]-|^AKIA[0-9A-Z]{12}|^eyJ[\w-]+\.[\w-]+/.test(value))
    return true;
  return value.length >= 20 && /[A-Z]/.test(value) && /[a-z]/.test(value) && /[0-9]/.test(value);
}
