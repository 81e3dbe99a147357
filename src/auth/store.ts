import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { CredentialError } from '../errors/credential-error.js';
import { privateFile } from '../local/private-path.js';
import { openDatabase } from '../local/sqlite.js';

/** Where a credential may be sent: sealed with its value, so only giving the value again changes it. */
interface Bound {
  /**
   * Origins (scheme, host and port: `https://api.example.com`) requests carrying the credential may
   * go to. Absent: any (a device credential stored without `--origin`; the platform refuses it).
   */
  readonly origins?: readonly string[];
}

/** What a credential entry holds, by kind (conventions.md). */
export interface SecretCredential extends Bound {
  readonly kind: 'secret';
  readonly value: string;
}
/** A static token sent as `Authorization: Bearer <token>` (the most common API authentication). */
export interface BearerCredential extends Bound {
  readonly kind: 'bearer';
  readonly token: string;
}
export interface BasicCredential extends Bound {
  readonly kind: 'basic';
  readonly username: string;
  readonly password: string;
}
export interface OAuthCredential extends Bound {
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
  /** Where a user's tokens are revoked when they disconnect (RFC 7009), when the provider has one. */
  readonly revocationEndpoint?: string;
}
/** Tokens of an OAuth credential: the device keychain (spec 5). */
export interface TokenSet {
  readonly kind: 'token';
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch ms; undefined when the server gave no lifetime. */
  readonly expiresAt?: number;
}
export type Credential = SecretCredential | BasicCredential | BearerCredential | OAuthCredential;
type Entry = Credential | TokenSet;

type Kind = Entry['kind'];
interface Row {
  kind: Kind;
  nonce: Buffer;
  data: Buffer;
}

const TOKEN_PREFIX = 'token:';

/** How long a writer waits for another process's write to finish before giving up. */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * Credentials of one solution, encrypted at rest: AES-256-GCM, a fresh 96-bit nonce per record, and
 * the record's key and kind bound in as associated data (a record moved to another key fails to
 * decrypt). Only kinds and keys are readable without the key. Values are write-only to the outside:
 * `list` never returns them.
 *
 * The records live in a SQLite file (mode 0600), one row each. Every change is one statement or
 * one transaction on the rows it touches, so processes that write at the same time (parallel
 * `credentials set`, two runs rotating OAuth tokens) never lose each other's records: SQLite's
 * lock serialises them, where a rewritten JSON file kept only the last writer's view.
 */
export class CredentialStore {
  private cachedKey: Buffer | undefined;
  private connection: Database.Database | undefined;

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
    const rows = this.query((db) => db.prepare('SELECT name, kind FROM credentials').all()) as
      | Array<{ name: string; kind: Kind }>
      | undefined;
    const names = new Set(rows?.map((r) => r.name));
    return (rows ?? [])
      .filter((r) => !r.name.startsWith(TOKEN_PREFIX))
      .map((r) => ({
        key: r.name,
        kind: r.kind as Credential['kind'],
        hasToken: names.has(`${TOKEN_PREFIX}${r.name}`),
      }))
      .sort((a, b) => a.key.localeCompare(b.key));
  }

  /** The keys of the credentials stored (their values stay sealed). */
  keys(): string[] {
    return this.list().map((c) => c.key);
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
    const removed = this.change((db) =>
      db.prepare('DELETE FROM credentials WHERE name IN (?, ?)').run(key, `${TOKEN_PREFIX}${key}`),
    );
    return removed.changes > 0;
  }

  getTokens(key: string): TokenSet | undefined {
    return this.open(`${TOKEN_PREFIX}${key}`) as TokenSet | undefined;
  }

  setTokens(key: string, tokens: Omit<TokenSet, 'kind'>): void {
    this.write(`${TOKEN_PREFIX}${key}`, { kind: 'token', ...tokens });
  }

  /**
   * Forgets the tokens of `key`. With `ifRefreshToken`, only when the stored refresh token is still
   * that one: another process may have rotated it meanwhile, and its fresh tokens must stay.
   * Returns whether the tokens were removed.
   */
  clearTokens(key: string, ifRefreshToken?: string): boolean {
    const name = `${TOKEN_PREFIX}${key}`;
    return this.change((db) =>
      db
        .transaction(() => {
          if (ifRefreshToken !== undefined) {
            const stored = this.decrypt(name, this.row(db, name)) as TokenSet | undefined;
            if (stored?.refreshToken !== ifRefreshToken) return false;
          }
          return db.prepare('DELETE FROM credentials WHERE name = ?').run(name).changes > 0;
        })
        .immediate(),
    );
  }

  /**
   * Moves the records of a `credentials.json` (the store format before SQLite) into this store and
   * removes the file. Records are copied as they are, still encrypted: key and kind are the
   * associated data, so they decrypt the same here. Records already in the store win.
   */
  importLegacyFile(jsonFile: string): void {
    let records: Record<string, { kind: Kind; nonce: string; data: string }>;
    try {
      records = JSON.parse(readFileSync(jsonFile, 'utf8')).records;
      if (typeof records !== 'object' || records === null) throw new Error('no records');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new CredentialError(
        'CREDENTIAL_STORE_CORRUPT',
        `${jsonFile} is not a restfn credential store; move it away and set the credentials again`,
      );
    }
    this.change((db) => {
      const insert = db.prepare(
        'INSERT OR IGNORE INTO credentials (name, kind, nonce, data) VALUES (?, ?, ?, ?)',
      );
      db.transaction(() => {
        for (const [name, r] of Object.entries(records)) {
          insert.run(name, r.kind, Buffer.from(r.nonce, 'base64'), Buffer.from(r.data, 'base64'));
        }
      }).immediate();
    });
    rmSync(jsonFile, { force: true });
  }

  /** Closes the database connection; the store reopens it on the next use. */
  close(): void {
    this.connection?.close();
    this.connection = undefined;
  }

  private open(name: string): Entry | undefined {
    return this.decrypt(
      name,
      this.query((db) => this.row(db, name)),
    );
  }

  private row(db: Database.Database, name: string): Row | undefined {
    return db.prepare('SELECT kind, nonce, data FROM credentials WHERE name = ?').get(name) as
      | Row
      | undefined;
  }

  private decrypt(name: string, record: Row | undefined): Entry | undefined {
    if (!record) return undefined;
    const blob = record.data;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, record.nonce);
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
    const { kind, ...payload } = entry;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(aad(name, kind));
    const data = Buffer.concat([
      cipher.update(JSON.stringify(payload), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    this.change((db) =>
      db
        .prepare(
          'INSERT INTO credentials (name, kind, nonce, data) VALUES (?, ?, ?, ?) ' +
            'ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, nonce = excluded.nonce, data = excluded.data',
        )
        .run(name, kind, nonce, data),
    );
  }

  /** A read: a store that does not exist yet is empty, and reading it creates nothing. */
  private query<T>(read: (db: Database.Database) => T): T | undefined {
    if (!this.connection && !existsSync(this.file)) return undefined;
    return this.guard(() => read(this.db()));
  }

  private change<T>(write: (db: Database.Database) => T): T {
    return this.guard(() => write(this.db()));
  }

  private db(): Database.Database {
    if (!this.connection) {
      privateFile(this.file);
      const db = openDatabase(this.file, { timeout: BUSY_TIMEOUT_MS });
      try {
        db.exec(
          'CREATE TABLE IF NOT EXISTS credentials (name TEXT PRIMARY KEY, kind TEXT NOT NULL, nonce BLOB NOT NULL, data BLOB NOT NULL)',
        );
      } catch (error) {
        db.close();
        throw error;
      }
      this.connection = db;
    }
    return this.connection;
  }

  /** SQLite's own failures (not a database, locked for too long) become coded store errors. */
  private guard<T>(action: () => T): T {
    try {
      return action();
    } catch (error) {
      if (!(error instanceof Database.SqliteError)) throw error;
      if (error.code === 'SQLITE_BUSY') {
        throw new CredentialError(
          'CREDENTIAL_STORE_BUSY',
          `${this.file} stayed locked by another restfn process for ${BUSY_TIMEOUT_MS / 1000} s; try again`,
        );
      }
      throw new CredentialError(
        'CREDENTIAL_STORE_CORRUPT',
        `${this.file} is not a restfn credential store (${error.code}); move it away and set the credentials again`,
      );
    }
  }
}

function aad(name: string, kind: string): Buffer {
  return Buffer.from(`restfn/credential/v1\u0000${name}\u0000${kind}`, 'utf8');
}
