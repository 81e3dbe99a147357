/**
 * Deepest bracket nesting an expression may have. JSONata parses and evaluates recursively, so an
 * expression nested thousands deep overflows the stack with an engine message; nothing written by
 * hand comes near this, so it is fixed rather than a setting.
 */
export const MAX_EXPRESSION_NESTING = 256;

/**
 * The index of the first opening bracket (`(`, `[`, `{`) nested deeper than `max`, or undefined.
 * One pass without recursion, so the check itself cannot overflow. String literals, backquoted names
 * and comments are skipped; a backslash outside them (only regular expressions have one) escapes
 * the next character. Inside a regular expression a bracket may be counted although it is a
 * character (`/[(]/`): that can only make the count higher, never hide a deep nesting.
 */
export function tooDeepAt(text: string, max = MAX_EXPRESSION_NESTING): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === QUOTE || ch === APOSTROPHE || ch === BACKQUOTE) {
      i = closingQuote(text, i, ch);
    } else if (ch === SLASH && text.charCodeAt(i + 1) === STAR) {
      const close = text.indexOf('*/', i + 2);
      i = close === -1 ? text.length : close + 1;
    } else if (ch === BACKSLASH) {
      i += 1;
    } else if (ch === OPEN_PAREN || ch === OPEN_BRACKET || ch === OPEN_BRACE) {
      depth += 1;
      if (depth > max) return i;
    } else if (ch === CLOSE_PAREN || ch === CLOSE_BRACKET || ch === CLOSE_BRACE) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}

const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const BACKQUOTE = 0x60;
const SLASH = 0x2f;
const STAR = 0x2a;
const BACKSLASH = 0x5c;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Index of the closing quote (or the last index); backslash escapes apply except in backquotes. */
function closingQuote(text: string, start: number, quote: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === BACKSLASH && quote !== BACKQUOTE) i += 1;
    else if (ch === quote) return i;
  }
  return text.length;
}
