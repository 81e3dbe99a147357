/**
 * SHA-256 of `data` as lowercase hex, synchronously (callers decide inside a transaction). Node
 * hashes natively; the browser build uses digest.browser.ts, the same function in plain
 * TypeScript (Web Crypto's digest is asynchronous only). `node:crypto` is loaded at the first hash,
 * not when a command that may hash starts (issue 41, start-up).
 */
export function sha256Hex(data: string | Uint8Array): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(data).digest('hex');
}
