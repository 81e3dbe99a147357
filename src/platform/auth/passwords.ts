import { hash, verify } from '@node-rs/argon2';

/** argon2id with the library's defaults (OWASP's minimum: 19 MiB, 2 passes). */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export function verifyPassword(stored: string, password: string): Promise<boolean> {
  return verify(stored, password);
}
