/**
 * What HTTP lets a header carry (RFC 9110 5.1, 5.5). undici refuses anything else, but only once the
 * request is under way, where the refusal looks like a network failure and is retried; checking
 * here refuses it before anything is sent, as the author's or caller's mistake it is.
 */

/** A field name is a token: letters, digits and ``!#$%&'*+-.^_`|~``. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function isHeaderName(name: string): boolean {
  return TOKEN.test(name);
}

export interface HeaderValueProblem {
  /** What is wrong, never the character itself when it could be part of a secret. */
  readonly kind: 'line break' | 'control character' | 'character beyond Latin-1';
  /** Zero-based index of the first offending character. */
  readonly index: number;
  readonly codePoint: number;
}

/**
 * The first character a header value cannot hold, or undefined. Allowed: tab, visible ASCII, space
 * and the bytes 0x80-0xFF (`obs-text`, sent as Latin-1); refused: CR and LF (they would end the
 * header and start another), other controls, DEL, and characters above U+00FF.
 */
export function headerValueProblem(value: string): HeaderValueProblem | undefined {
  for (let index = 0; index < value.length; index++) {
    const codePoint = value.charCodeAt(index);
    if (
      codePoint === 0x09 ||
      (codePoint >= 0x20 && codePoint <= 0x7e) ||
      (codePoint >= 0x80 && codePoint <= 0xff)
    )
      continue;
    const kind =
      codePoint === 0x0a || codePoint === 0x0d
        ? 'line break'
        : codePoint > 0xff
          ? 'character beyond Latin-1'
          : 'control character';
    return { kind, index, codePoint };
  }
  return undefined;
}

/** `U+000A`, for messages. */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}
