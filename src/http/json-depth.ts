/**
 * Whether the JSON text in `bytes` (UTF-8) nests arrays and objects deeper than `max`. One pass over
 * the bytes, no recursion and no parsing, so a hostile body (100,000 `[`) costs a scan, not a stack
 * overflow somewhere later in the pipeline. Brackets inside strings do not count. Bytes, not the
 * decoded text: every structural character is ASCII, and UTF-8 never uses an ASCII byte inside a
 * multi-byte character; a byte loop with a class table is about twice as fast as `charCodeAt`.
 */
export function jsonDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const kind = KIND[bytes[i]!]!;
    if (kind === PLAIN) continue;
    if (kind === QUOTE) {
      // Skip the string: up to its closing quote, jumping over escaped characters.
      for (i++; i < n; i++) {
        const b = bytes[i]!;
        if (b === BACKSLASH) i++;
        else if (b === QUOTE_BYTE) break;
      }
    } else if (kind === OPEN) {
      depth += 1;
      if (depth > max) return true;
    } else if (kind === CLOSE) {
      depth -= 1;
    }
  }
  return false;
}

const PLAIN = 0;
const QUOTE = 1;
const OPEN = 2;
const CLOSE = 3;
const QUOTE_BYTE = 0x22;
const BACKSLASH = 0x5c;

/** What each byte is to the scan; most are PLAIN. */
const KIND = new Uint8Array(256);
KIND[QUOTE_BYTE] = QUOTE;
KIND[0x5b] = OPEN; // [
KIND[0x7b] = OPEN; // {
KIND[0x5d] = CLOSE; // ]
KIND[0x7d] = CLOSE; // }
