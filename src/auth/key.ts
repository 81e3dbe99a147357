import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CredentialError } from '../errors/credential-error.js';

export const KEY_ENV = 'RESTFN_CREDENTIALS_KEY';

/** Where the key file lives: `$XDG_CONFIG_HOME/restfn/key`, else `~/.config/restfn/key`. */
export function keyFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'restfn', 'key');
}

/**
 * The 32-byte key that encrypts the credential store. It never lives beside the store: it comes
 * from `RESTFN_CREDENTIALS_KEY` (base64), else from a key file in the user's config folder, created
 * with mode 0600 on first use when `create` is set.
 */
export function loadKey(options: { create: boolean; env?: NodeJS.ProcessEnv }): Buffer {
  const env = options.env ?? process.env;
  const fromEnv = env[KEY_ENV];
  if (fromEnv !== undefined) return decodeKey(fromEnv, KEY_ENV);
  const path = keyFilePath(env);
  if (!existsSync(path)) {
    if (!options.create) {
      throw new CredentialError(
        'CREDENTIAL_KEY_MISSING',
        `no credentials key: set ${KEY_ENV} or create one with 'restfn credentials set'`,
      );
    }
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return decodeKey(readFileSync(path, 'utf8'), path);
}

function decodeKey(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) {
    throw new CredentialError(
      'CREDENTIAL_KEY_INVALID',
      `the credentials key in ${where} must be 32 bytes, base64-encoded`,
    );
  }
  return key;
}
