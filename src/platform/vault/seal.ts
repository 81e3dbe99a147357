import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with a fresh 96-bit nonce, laid out as `nonce | tag | ciphertext`; `aad` binds the
 * sealed bytes to where they belong (a record moved to another solution or key fails to open).
 */
export function seal(key: Buffer, plaintext: Buffer, aad: string): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]);
}

/** Opens what `seal` made; throws when the key, the aad or a byte is wrong. */
export function open(key: Buffer, sealed: Buffer, aad: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}

/** A master key's public name: the start of its SHA-256 (says which key wrapped a record, reveals nothing). */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('restfn master key').update(key).digest('hex').slice(0, 16);
}
