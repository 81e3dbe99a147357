import { bodyText } from '../http/charset.js';
import { maskShownText } from './mask.js';

/** Response bodies in the `--verbose` trace: enough to debug, never the whole of a huge answer. */
export const TRACE_BODY_LIMIT = 64 * 1024;
/** The excerpt of an error response printed with REMOTE_ERROR. */
export const ERROR_BODY_LIMIT = 2 * 1024;

const TEXTUAL = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded|yaml|csv))/i;

/**
 * A body as it may be shown: text with every credential value masked, cut to `limit` characters;
 * binary content as a placeholder. Masking happens before the cut, on a window long enough to hold
 * any encoded form of a secret that starts before the cut, so a cut never leaves part of a secret.
 */
export function bodyExcerpt(
  bytes: Buffer,
  contentType: string | undefined,
  secrets: readonly string[],
  limit: number,
): string {
  const type = contentType?.split(';')[0]?.trim();
  const textual = type ? TEXTUAL.test(type) : !bytes.subarray(0, 1024).includes(0);
  if (!textual) return `<${bytes.length} bytes${type ? `, ${type}` : ''}>`;
  // An encoded secret (JSON-escaped, percent-encoded) is at most 6 characters per character.
  const margin = 6 * Math.max(0, ...secrets.map((s) => s.length)) + 16;
  const chars = limit + margin;
  // Every encoding takes at most 4 bytes a character: these bytes hold at least `chars` characters.
  const decoded = textOf(bytes.subarray(0, chars * 4), contentType);
  const whole = bytes.length <= chars * 4 && decoded.length <= chars;
  const masked = maskShownText(decoded.slice(0, chars), secrets);
  if (whole && masked.length <= limit) return masked;
  return `${masked.slice(0, limit)}... (${bytes.length} bytes in all)`;
}

/** The text in its character set (as the body's parser reads it), else as UTF-8. */
function textOf(bytes: Buffer, contentType: string | undefined): string {
  try {
    return bodyText(bytes, contentType, NO_REQUEST, /xml/i.test(contentType ?? ''));
  } catch {
    // A charset no one knows: the failure itself says so; the excerpt shows what UTF-8 makes of it.
    return bytes.toString('utf8');
  }
}

const NO_REQUEST = { method: '', url: '' };
