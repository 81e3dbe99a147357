// Random ids and nonces from Web Crypto, which Node (20+) and browsers both have as `crypto`: the
// library's code that runs in the browser client too takes them from here, not from node:crypto.

/** A random UUID (version 4). */
export function randomUUID(): string {
  return globalThis.crypto.randomUUID();
}

/** `bytes` random bytes as lowercase hex (what `randomBytes(n).toString('hex')` gives). */
export function randomHex(bytes: number): string {
  const values = globalThis.crypto.getRandomValues(new Uint8Array(bytes));
  let hex = '';
  for (const value of values) hex += value.toString(16).padStart(2, '0');
  return hex;
}
