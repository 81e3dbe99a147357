import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
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
    createKeyFile(path);
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return decodeKey(readFileSync(path, 'utf8'), path);
}

/**
 * Writes a fresh key beside the path, then links it into place: the link fails when another
 * process created the key first, and then that key is used. A reader never sees a half-written key.
 */
function createKeyFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temp, { force: true });
  }
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
