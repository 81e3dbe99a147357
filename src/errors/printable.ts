/**
 * Characters that must not reach a terminal or a log line as they are: C0 controls (line breaks
 * forge extra lines, ESC starts terminal sequences), DEL, C1 controls (U+009B is a one-character
 * CSI on some terminals), the Unicode line and paragraph separators, and the bidirectional
 * overrides that make text read differently from what it holds.
 */
function unprintable(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** The same characters as `unprintable`, for a first look at a whole text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const ANY_UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every unprintable character written as an escape (`\n`, `\u001b`), JSON style. */
export function printable(text: string): string {
  // Almost every text has none: one native scan decides.
  if (!ANY_UNPRINTABLE.test(text)) return text;
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    out += unprintable(code) ? (SHORT[c] ?? `\\u${code.toString(16).padStart(4, '0')}`) : c;
  }
  return out;
}
