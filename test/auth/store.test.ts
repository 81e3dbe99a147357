import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { keyFilePath, loadKey } from '../../src/auth/key.js';
import { CredentialStore } from '../../src/auth/store.js';
import { tempSolution } from '../helpers/temp-solution.js';

const SECRET = 'pl41n-S3cret-Value-XYZ';

function store(key = randomBytes(32)) {
  return new CredentialStore(join(tempSolution(), 'credentials.json'), key);
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
    const first = JSON.parse(readFileSync(s.file, 'utf8')).records.a;
    s.set('a', { kind: 'secret', value: SECRET });
    const second = JSON.parse(readFileSync(s.file, 'utf8')).records.a;
    expect(second.nonce).not.toBe(first.nonce);
    expect(second.data).not.toBe(first.data);
  });

  test('a wrong key, a tampered byte, or a record moved to another key: a clear error, never garbage', () => {
    const key = randomBytes(32);
    const s = store(key);
    s.set('a', { kind: 'secret', value: SECRET });
    s.set('b', { kind: 'secret', value: 'other' });
    expect(() => new CredentialStore(s.file, randomBytes(32)).get('a')).toThrow(
      expect.objectContaining({ code: 'CREDENTIAL_DECRYPT' }),
    );

    const file = JSON.parse(readFileSync(s.file, 'utf8'));
    const moved = { ...file, records: { ...file.records, b: file.records.a } };
    writeFileSync(s.file, JSON.stringify(moved));
    expect(() => s.get('b')).toThrow(expect.objectContaining({ code: 'CREDENTIAL_DECRYPT' }));

    const data = Buffer.from(file.records.a.data, 'base64');
    data[0] = (data[0] ?? 0) ^ 1;
    writeFileSync(
      s.file,
      JSON.stringify({ ...file, records: { a: { ...file.records.a, data: data.toString('base64') } } }),
    );
    expect(() => s.get('a')).toThrow(expect.objectContaining({ code: 'CREDENTIAL_DECRYPT' }));
    writeFileSync(s.file, 'not json');
    expect(() => s.get('a')).toThrow(expect.objectContaining({ code: 'CREDENTIAL_STORE_CORRUPT' }));
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
