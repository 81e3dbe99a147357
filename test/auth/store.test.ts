import { spawn } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { keyFilePath, loadKey } from '../../src/auth/key.js';
import { StoreCredentialProvider } from '../../src/auth/provider.js';
import { CredentialStore } from '../../src/auth/store.js';
import { SYSTEM_CLOCK } from '../../src/errors/clock.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

const SECRET = 'pl41n-S3cret-Value-XYZ';

function store(key = randomBytes(32)) {
  return new CredentialStore(join(tempSolution(), 'credentials.db'), key);
}

function sql(file: string, statement: string, ...params: unknown[]) {
  const db = new Database(file);
  try {
    return db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}

function rawRow(file: string, name: string): { nonce: Buffer; data: Buffer } {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT nonce, data FROM credentials WHERE name = ?').get(name) as {
      nonce: Buffer;
      data: Buffer;
    };
  } finally {
    db.close();
  }
}

/** The JSON store format restfn wrote before the SQLite store: the same encryption per record. */
function legacyFile(key: Buffer, secrets: Record<string, string>) {
  const records: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(secrets)) {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(`restfn/credential/v1\u0000${name}\u0000secret`, 'utf8'));
    const data = Buffer.concat([
      cipher.update(JSON.stringify({ value })),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    records[name] = { kind: 'secret', nonce: nonce.toString('base64'), data: data.toString('base64') };
  }
  return { version: 1, records };
}

describe('credential store', () => {
  test('round trip per kind; the file holds no plaintext; list shows keys and kinds only', () => {
    const s = store();
    s.set('api', { kind: 'secret', value: SECRET });
    s.set('basic', { kind: 'basic', username: 'user-Qx7Lm2Pz9Wk4Rt', password: SECRET });
    s.setTokens('api', { accessToken: `${SECRET}-token`, refreshToken: `${SECRET}-refresh`, expiresAt: 5 });
    expect(s.get('api')).toEqual({ kind: 'secret', value: SECRET });
    expect(s.get('basic')).toEqual({ kind: 'basic', username: 'user-Qx7Lm2Pz9Wk4Rt', password: SECRET });
    expect(s.getTokens('api')).toMatchObject({
      accessToken: `${SECRET}-token`,
      refreshToken: `${SECRET}-refresh`,
    });
    const bytes = readFileSync(s.file);
    expect(bytes.includes(SECRET)).toBe(false);
    expect(bytes.includes('user-Qx7Lm2Pz9Wk4Rt')).toBe(false);
    expect(JSON.stringify(s.list())).not.toContain(SECRET);
    expect(s.list()).toEqual([
      { key: 'api', kind: 'secret', hasToken: true },
      { key: 'basic', kind: 'basic', hasToken: false },
    ]);
    expect(statSync(s.file).mode & 0o777).toBe(0o600);
  });

  test('a fresh nonce per write: the same value encrypts differently', () => {
    const s = store();
    s.set('a', { kind: 'secret', value: SECRET });
    const first = rawRow(s.file, 'a');
    s.set('a', { kind: 'secret', value: SECRET });
    const second = rawRow(s.file, 'a');
    expect(second.nonce.equals(first.nonce)).toBe(false);
    expect(second.data.equals(first.data)).toBe(false);
  });

  test('a wrong key, a tampered byte, or a record moved to another key: a clear error, never garbage', () => {
    const key = randomBytes(32);
    const s = store(key);
    s.set('a', { kind: 'secret', value: SECRET });
    s.set('b', { kind: 'secret', value: 'other' });
    expect(() => new CredentialStore(s.file, randomBytes(32)).get('a')).toThrow(
      expect.objectContaining({ code: 'CREDENTIAL_DECRYPT' }),
    );

    const a = rawRow(s.file, 'a');
    sql(s.file, 'UPDATE credentials SET nonce = ?, data = ? WHERE name = ?', a.nonce, a.data, 'b');
    expect(() => s.get('b')).toThrow(expect.objectContaining({ code: 'CREDENTIAL_DECRYPT' }));

    const data = Buffer.from(a.data);
    data[0] = (data[0] ?? 0) ^ 1;
    sql(s.file, 'UPDATE credentials SET data = ? WHERE name = ?', data, 'a');
    expect(() => s.get('a')).toThrow(expect.objectContaining({ code: 'CREDENTIAL_DECRYPT' }));

    s.close();
    writeFileSync(s.file, 'not a database, just text that is long enough to not be a header');
    expect(() => s.get('a')).toThrow(expect.objectContaining({ code: 'CREDENTIAL_STORE_CORRUPT' }));
    expect(() => s.set('a', { kind: 'secret', value: SECRET })).toThrow(
      expect.objectContaining({ code: 'CREDENTIAL_STORE_CORRUPT' }),
    );
  });

  test('reading a store that does not exist creates nothing', () => {
    const s = store();
    expect(s.list()).toEqual([]);
    expect(s.get('a')).toBeUndefined();
    expect(existsSync(s.file)).toBe(false);
  });

  test('a credentials.json of an earlier restfn is imported once, still encrypted, and removed', () => {
    const key = randomBytes(32);
    const root = tempSolution();
    const legacy = join(root, 'credentials.json');
    writeFileSync(legacy, JSON.stringify(legacyFile(key, { api: SECRET })), { mode: 0o600 });
    const s = new CredentialStore(join(root, 'credentials.db'), key);
    s.set('newer', { kind: 'secret', value: 'kept' });
    s.importLegacyFile(legacy);
    expect(existsSync(legacy)).toBe(false);
    expect(s.get('api')).toEqual({ kind: 'secret', value: SECRET });
    expect(s.get('newer')).toEqual({ kind: 'secret', value: 'kept' });
    expect(readFileSync(s.file).includes(SECRET)).toBe(false);

    writeFileSync(legacy, '{"records": oops');
    expect(() => s.importLegacyFile(legacy)).toThrow(
      expect.objectContaining({ code: 'CREDENTIAL_STORE_CORRUPT' }),
    );
    expect(s.get('api')).toEqual({ kind: 'secret', value: SECRET });
  });

  test("four processes writing at once lose nothing (every write is its own row under SQLite's lock)", async () => {
    const key = randomBytes(32).toString('base64');
    const file = join(tempSolution(), 'credentials.db');
    // The built library (npm test builds first), so the writers are plain node processes.
    const storeModule = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'auth', 'store.js')).href;
    const writer = (n: number) =>
      new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, [
          '--input-type=module',
          '-e',
          `const { CredentialStore } = await import(${JSON.stringify(storeModule)});
           const s = new CredentialStore(${JSON.stringify(file)}, Buffer.from(${JSON.stringify(key)}, 'base64'));
           for (let i = 0; i < 50; i++) s.set('w${n}-' + i, { kind: 'secret', value: 'v' + i });`,
        ]);
        child.on('error', reject);
        child.on('close', resolve);
      });
    expect(await Promise.all([1, 2, 3, 4].map(writer))).toEqual([0, 0, 0, 0]);
    const s = new CredentialStore(file, Buffer.from(key, 'base64'));
    expect(s.list()).toHaveLength(200);
    expect(s.get('w3-49')).toEqual({ kind: 'secret', value: 'v49' });
  });

  test('a refresh token rotated by another process is not cleared by a stale one', () => {
    const key = randomBytes(32);
    const file = join(tempSolution(), 'credentials.db');
    const mine = new CredentialStore(file, key);
    const theirs = new CredentialStore(file, key);
    mine.setTokens('web', { accessToken: 'a1', refreshToken: 'r1' });
    theirs.setTokens('web', { accessToken: 'a2', refreshToken: 'r2' });
    expect(mine.clearTokens('web', 'r1')).toBe(false);
    expect(mine.getTokens('web')).toMatchObject({ accessToken: 'a2', refreshToken: 'r2' });
    expect(mine.clearTokens('web', 'r2')).toBe(true);
    expect(theirs.getTokens('web')).toBeUndefined();
  });

  test('a refresh refused because another process rotated the token meanwhile uses the rotated tokens', async () => {
    const key = randomBytes(32);
    const file = join(tempSolution(), 'credentials.db');
    const mine = new CredentialStore(file, key);
    const theirs = new CredentialStore(file, key);
    // The token endpoint plays the authorization server: while our refresh (with r1) is in flight,
    // another process has already traded r1 for r2 and stored it; r1 is refused.
    const server = await testServer((_, res) => {
      theirs.setTokens('web', { accessToken: 'a2', refreshToken: 'r2', expiresAt: Date.now() + 3_600_000 });
      json(res, 400, { error: 'invalid_grant' });
    });
    mine.set('web', {
      kind: 'oauth',
      tokenEndpoint: `${server.url}/token`,
      clientId: 'c',
      clientSecret: 's',
      scopes: [],
      grantType: 'authorization_code',
    });
    mine.setTokens('web', { accessToken: 'a1', refreshToken: 'r1', expiresAt: 0 });
    const provider = new StoreCredentialProvider(() => mine, SYSTEM_CLOCK);
    const applied = await provider.apply({
      parameter: 'accessToken',
      kind: 'oauth',
      key: 'web',
      location: 'header',
    });
    expect(applied.values).toEqual([{ name: 'authorization', location: 'header', value: 'Bearer a2' }]);
    expect(mine.getTokens('web')).toMatchObject({ refreshToken: 'r2' });
    expect(server.requests).toHaveLength(1);
  });

  test('the key comes from the environment, or a 0600 key file created outside the store', () => {
    const config = tempSolution();
    const env = { XDG_CONFIG_HOME: config };
    expect(() => loadKey({ create: false, env })).toThrow(
      expect.objectContaining({ code: 'CREDENTIAL_KEY_MISSING' }),
    );
    const created = loadKey({ create: true, env });
    expect(created).toHaveLength(32);
    expect(statSync(keyFilePath(env)).mode & 0o777).toBe(0o600);
    expect(loadKey({ create: false, env }).equals(created)).toBe(true);
    const fromEnv = randomBytes(32);
    expect(
      loadKey({ create: false, env: { RESTFN_CREDENTIALS_KEY: fromEnv.toString('base64') } }).equals(fromEnv),
    ).toBe(true);
    expect(() => loadKey({ create: false, env: { RESTFN_CREDENTIALS_KEY: 'short' } })).toThrow(
      expect.objectContaining({ code: 'CREDENTIAL_KEY_INVALID' }),
    );
  });
});
