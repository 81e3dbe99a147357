import { CREDENTIAL_NAME } from '../definition/credential-params.js';

/** What a credential value is shown as, wherever it would appear. */
export const MASK = '***';

/** Header names whose values are credentials whatever set them. */
const ALWAYS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/**
 * The one rule for "this header may carry a credential". Traces mask such headers, and the
 * transport refuses to carry them to another origin on a redirect: both ask this function, so a
 * header that is hidden from the trace is never handed to a host the author did not name.
 * `credentialHeaders` are the headers a credential parameter filled, whatever they are called.
 */
export function isSensitiveHeader(name: string, credentialHeaders?: ReadonlySet<string>): boolean {
  const lower = name.toLowerCase();
  return ALWAYS.has(lower) || CREDENTIAL_NAME.test(lower) || (credentialHeaders?.has(lower) ?? false);
}
