import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CredentialError } from '../errors/credential-error.js';

/** What a credential entry holds, by kind (conventions.md). */
export interface SecretCredential {
  readonly kind: 'secret';
  readonly value: string;
}
export interface BasicCredential {
  readonly kind: 'basic';
  readonly username: string;
  readonly password: string;
}
export interface OAuthCredential {
  readonly kind: 'oauth';
  readonly tokenEndpoint: string;
  readonly authorizationEndpoint?: string;
  /** The authorization server's issuer identifier; default the token endpoint's origin. */
  readonly issuer?: string;
  readonly clientId: string;
  /** Absent for public clients (authorization code with PKCE only). */
  readonly clientSecret?: string;
  readonly scopes: readonly string[];
  readonly grantType: 'authorization_code' | 'client_credentials';
  readonly redirectUri?: string;
}
/** Tokens of an OAuth credential: the device keychain (spec 5). */
export interface TokenSet {
  readonly kind: 'token';
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch ms; undefined when the server gave no lifetime. */
  readonly expiresAt?: number;
}
export type Credential = SecretCredential | BasicCredential | OAuthCredential;
type Entry = Credential | TokenSet;

interface FileFormat {
  version: 1;
  records: Record<string, { kind: Entry['kind']; nonce: string; data: string }>;
}

const TOKEN_PREFIX = 'token:';

/**
 * Credentials of one solution, encrypted at rest: AES-256-GCM, a fresh 96-bit nonce per record, and
 * the record's key and kind bound in as associated data (a record moved to another key fails to
 * decrypt). Only kinds and keys are readable without the key. Values are write-only to the outside:
 * `list` never returns them. Every write replaces the file atomically (write, then rename), mode 0600.
 */
export class CredentialStore {
  private cachedKey: Buffer | undefined;

  /** `key` may be a function: it is then called on the first encryption or decryption only. */
  constructor(
    readonly file: string,
    private readonly keySource: Buffer | (() => Buffer),
  ) {}

  private get key(): Buffer {
    this.cachedKey ??= typeof this.keySource === 'function' ? this.keySource() : this.keySource;
    return this.cachedKey;
  }

  list(): Array<{ key: string; kind: Credential['kind']; hasToken: boolean }> {
    const records = this.read().records;
    return Object.entries(records)
      .filter(([name]) => !name.startsWith(TOKEN_PREFIX))
      .map(([name, r]) => ({
        key: name,
        kind: r.kind as Credential['kind'],
        hasToken: `${TOKEN_PREFIX}${name}` in records,
      }))
      .sort((a, b) => a.key.localeCompare(b.key));
  }

  get(key: string): Credential | undefined {
    return this.open(key) as Credential | undefined;
  }

  set(key: string, credential: Credential): void {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(key)) {
      throw new CredentialError(
        'CREDENTIAL_KEY_NAME',
        `'${key}' is not a valid credential key (letters, digits, '.', '_', '-')`,
      );
    }
    this.write(key, credential);
  }

  delete(key: string): boolean {
    const file = this.read();
    if (!Object.hasOwn(file.records, key)) return false;
    delete file.records[key];
    delete file.records[`${TOKEN_PREFIX}${key}`];
    this.save(file);
    return true;
  }

  getTokens(key: string): TokenSet | undefined {
    return this.open(`${TOKEN_PREFIX}${key}`) as TokenSet | undefined;
  }

  setTokens(key: string, tokens: Omit<TokenSet, 'kind'>): void {
    this.write(`${TOKEN_PREFIX}${key}`, { kind: 'token', ...tokens });
  }

  clearTokens(key: string): void {
    const file = this.read();
    if (delete file.records[`${TOKEN_PREFIX}${key}`]) this.save(file);
  }

  private open(name: string): Entry | undefined {
    const records = this.read().records;
    const record = Object.hasOwn(records, name) ? records[name] : undefined;
    if (!record) return undefined;
    const blob = Buffer.from(record.data, 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(record.nonce, 'base64'));
      decipher.setAAD(aad(name, record.kind));
      decipher.setAuthTag(blob.subarray(blob.length - 16));
      const plain = Buffer.concat([decipher.update(blob.subarray(0, blob.length - 16)), decipher.final()]);
      return { kind: record.kind, ...JSON.parse(plain.toString('utf8')) } as Entry;
    } catch {
      throw new CredentialError(
        'CREDENTIAL_DECRYPT',
        `credential '${name}' cannot be decrypted: the credentials key is not the one it was stored with, or ${this.file} was altered`,
      );
    }
  }

  private write(name: string, entry: Entry): void {
    const file = this.read();
    const { kind, ...payload } = entry;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(aad(name, kind));
    const data = Buffer.concat([
      cipher.update(JSON.stringify(payload), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    file.records[name] = { kind, nonce: nonce.toString('base64'), data: data.toString('base64') };
    this.save(file);
  }

  private read(): FileFormat {
    if (!existsSync(this.file)) return { version: 1, records: {} };
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as FileFormat;
      if (parsed.version !== 1 || typeof parsed.records !== 'object') throw new Error('format');
      return parsed;
    } catch {
      throw new CredentialError('CREDENTIAL_STORE_CORRUPT', `${this.file} is not a restfn credential store`);
    }
  }

  private save(file: FileFormat): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(file, null, 2), { mode: 0o600 });
    renameSync(temp, this.file);
  }
}

function aad(name: string, kind: string): Buffer {
  return Buffer.from(`restfn/credential/v1\u0000${name}\u0000${kind}`, 'utf8');
}
