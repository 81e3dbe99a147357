import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { CredentialError } from '../../errors/credential-error.js';

export const MASTER_KEY_ENV = 'RESTFN_MASTER_KEY';

/** Where the master key is read from: the environment, or a file outside the data folder. */
export interface MasterKeySource {
  /** The key file; default `$XDG_CONFIG_HOME/restfn/platform-master.key` (or `~/.config/...`). */
  readonly file?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export function defaultMasterKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'restfn', 'platform-master.key');
}

/**
 * The 32-byte master key that wraps every credential's data key: `RESTFN_MASTER_KEY` (base64), else
 * the key file, created (mode 0600) on first start. Never inside the data folder: a copy of the data
 * folder (a backup) must not carry the key that opens it.
 */
export function loadMasterKey(dataDir: string, source: MasterKeySource = {}): { key: Buffer; file?: string } {
  const env = source.env ?? process.env;
  const fromEnv = env[MASTER_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { key: decodeMasterKey(fromEnv, MASTER_KEY_ENV) };
  const file = resolve(source.file ?? defaultMasterKeyFile(env));
  assertOutside(file, dataDir);
  if (!existsSync(file)) writeMasterKeyFile(file, randomBytes(32));
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return { key: decodeMasterKey(readFileSync(file, 'utf8'), file), file };
}

export function writeMasterKeyFile(file: string, key: Buffer): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600 });
}

export function decodeMasterKey(text: string, from: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) {
    throw new CredentialError(
      'CREDENTIAL_KEY_INVALID',
      `the master key in ${from} is not 32 bytes of base64 (make one with: openssl rand -base64 32)`,
    );
  }
  return key;
}

function assertOutside(file: string, dataDir: string): void {
  const rel = relative(resolve(dataDir), file);
  if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) {
    throw new CredentialError(
      'CREDENTIAL_KEY_INVALID',
      `the master key file ${file} is inside the data folder ${resolve(dataDir)}: keep it elsewhere, so a copy of the data does not carry the key`,
    );
  }
}
