import { createHash } from 'node:crypto';

/**
 * SHA-256 of `data` as lowercase hex, synchronously (callers decide inside a transaction). Node
 * hashes natively; the browser build uses digest.browser.ts, the same function in plain
 * TypeScript (Web Crypto's digest is asynchronous only).
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
