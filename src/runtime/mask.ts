import { CREDENTIAL_NAME } from '../definition/credential-params.js';

export const MASK = '***';

/** Header names whose values are always credentials, whatever parameter set them. */
const SENSITIVE_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** Headers as they may be shown: credential values replaced by `***`. */
export function maskHeaders(
  headers: Readonly<Record<string, string>>,
  secretNames: ReadonlySet<string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const hidden = SENSITIVE_HEADERS.has(name) || secretNames.has(name) || CREDENTIAL_NAME.test(name);
    out[name] = hidden ? MASK : value;
  }
  return out;
}

/** A string with every given secret value replaced by `***` (also in its percent-encoded form). */
export function maskText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 3) continue;
    out = out.split(secret).join(MASK).split(encodeURIComponent(secret)).join(MASK);
    out = out.split(new URLSearchParams({ s: secret }).toString().slice(2)).join(MASK);
  }
  return out;
}
