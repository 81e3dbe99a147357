/**
 * Whether JSON `text` nests arrays and objects deeper than `max`. One pass over the characters, no
 * recursion and no parsing, so a hostile body (100,000 `[`) costs a scan, not a stack overflow
 * somewhere later in the pipeline. Brackets inside strings do not count.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) i += 1;
      else if (ch === QUOTE) inString = false;
    } else if (ch === QUOTE) {
      inString = true;
    } else if (ch === OPEN_BRACKET || ch === OPEN_BRACE) {
      depth += 1;
      if (depth > max) return true;
    } else if (ch === CLOSE_BRACKET || ch === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
