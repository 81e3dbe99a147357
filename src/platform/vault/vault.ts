import { randomBytes } from 'node:crypto';
import type { CredentialRecords } from '../../auth/provider.js';
import type { Credential, TokenSet } from '../../auth/store.js';
import { CredentialError } from '../../errors/credential-error.js';
import type { CredentialRow, PlatformStore } from '../store/types.js';
import { keyIdOf, open, seal } from './seal.js';

const TOKEN_PREFIX = 'token:';

/** What `GET .../credentials` shows of a credential: never a secret. */
export interface CredentialInfo {
  readonly key: string;
  readonly kind: Credential['kind'];
  /** The fields that are not secret: a basic credential's username, an OAuth client's endpoints. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly hasToken: boolean;
  readonly updated: string;
  readonly updatedBy: string;
}

/**
 * The platform's credentials, encrypted at rest with envelope encryption: each record is sealed
 * (AES-256-GCM) under a data key of its own, and the data key is sealed under the master key,
 * whose id is stored beside it. Rotating the master key re-seals the data keys only. Values go in
 * and come out only towards an execution: nothing here returns a secret to a caller of the API.
 */
export class Vault {
  private readonly keyId: string;

  constructor(
    private readonly store: PlatformStore,
    private readonly master: Buffer,
  ) {
    this.keyId = keyIdOf(master);
  }

  async put(solution: string, key: string, credential: Credential, by: string): Promise<void> {
    await this.write(solution, key, credential, by);
    // New settings make old tokens meaningless (another client, other scopes).
    await this.store.deleteCredential(solution, `${TOKEN_PREFIX}${key}`);
  }

  async delete(solution: string, key: string): Promise<boolean> {
    await this.store.deleteCredential(solution, `${TOKEN_PREFIX}${key}`);
    return this.store.deleteCredential(solution, key);
  }

  async list(solution: string): Promise<CredentialInfo[]> {
    const rows = await this.store.listCredentials(solution);
    const keys = new Set(rows.map((r) => r.key));
    return rows
      .filter((r) => !r.key.startsWith(TOKEN_PREFIX))
      .map((r) => ({
        key: r.key,
        kind: r.kind as Credential['kind'],
        fields: r.meta,
        hasToken: keys.has(`${TOKEN_PREFIX}${r.key}`),
        updated: r.updated,
        updatedBy: r.updatedBy,
      }));
  }

  /** One solution's records, as the credential provider of its executions reads them. */
  records(solution: string): CredentialRecords {
    return {
      get: async (key) => (await this.read(solution, key)) as Credential | undefined,
      getTokens: async (key) => (await this.read(solution, `${TOKEN_PREFIX}${key}`)) as TokenSet | undefined,
      setTokens: async (key, tokens) => {
        await this.write(solution, `${TOKEN_PREFIX}${key}`, { kind: 'token', ...tokens }, 'system');
      },
      clearTokens: async (key, ifRefreshToken) => {
        const name = `${TOKEN_PREFIX}${key}`;
        if (ifRefreshToken !== undefined) {
          const stored = (await this.read(solution, name)) as TokenSet | undefined;
          if (stored?.refreshToken !== ifRefreshToken) return false;
        }
        return this.store.deleteCredential(solution, name);
      },
      exclusive: (key, work) => this.store.exclusive(`oauth-refresh:${solution}:${key}`, work),
    };
  }

  private async write(
    solution: string,
    key: string,
    entry: Credential | TokenSet,
    by: string,
  ): Promise<void> {
    const dataKey = randomBytes(32);
    const row: CredentialRow = {
      solution,
      key,
      kind: entry.kind,
      meta: publicFields(entry),
      keyId: this.keyId,
      wrappedKey: seal(this.master, dataKey, wrapAad(solution, key)),
      data: seal(dataKey, Buffer.from(JSON.stringify(entry), 'utf8'), recordAad(solution, key, entry.kind)),
      updated: new Date().toISOString(),
      updatedBy: by,
    };
    dataKey.fill(0);
    await this.store.putCredential(row);
  }

  private async read(solution: string, key: string): Promise<Credential | TokenSet | undefined> {
    const row = await this.store.getCredential(solution, key);
    if (!row) return undefined;
    let dataKey: Buffer;
    try {
      dataKey = open(this.master, row.wrappedKey, wrapAad(solution, key));
    } catch {
      throw new CredentialError(
        'CREDENTIAL_DECRYPT',
        `credential '${key}' was sealed under master key ${row.keyId}, and the platform runs with ${this.keyId}: start it with the key it was written with (or the one 'restfn serve rotate-key' made)`,
        key,
      );
    }
    try {
      return JSON.parse(open(dataKey, row.data, recordAad(solution, key, row.kind)).toString('utf8'));
    } finally {
      dataKey.fill(0);
    }
  }
}

/**
 * Re-seals every data key under `next` (the records themselves are untouched), in one transaction:
 * after it, only `next` opens the vault.
 */
export async function rotateMasterKey(store: PlatformStore, current: Buffer, next: Buffer): Promise<number> {
  const rows = await store.allCredentials();
  const currentId = keyIdOf(current);
  const foreign = rows.find((row) => row.keyId !== currentId);
  if (foreign) {
    throw new CredentialError(
      'CREDENTIAL_KEY_INVALID',
      `the master key given (id ${currentId}) does not open this data: its credentials are sealed under key ${foreign.keyId}; rotate with that key as the current one (RESTFN_MASTER_KEY or --master-key-file)`,
    );
  }
  const nextId = keyIdOf(next);
  const rewrapped = rows.map((row) => {
    const dataKey = open(current, row.wrappedKey, wrapAad(row.solution, row.key));
    const wrappedKey = seal(next, dataKey, wrapAad(row.solution, row.key));
    dataKey.fill(0);
    return { solution: row.solution, key: row.key, keyId: nextId, wrappedKey };
  });
  // With no credential stored, nothing is sealed yet: the rotation only records the new key.
  await store.rewrap(rewrapped, nextId);
  return rewrapped.length;
}

function wrapAad(solution: string, key: string): string {
  return `restfn-data-key\0${solution}\0${key}`;
}

function recordAad(solution: string, key: string, kind: string): string {
  return `restfn-credential\0${solution}\0${key}\0${kind}`;
}

/** The fields shown to people who manage the credential; everything else stays sealed. */
function publicFields(entry: Credential | TokenSet): Record<string, unknown> {
  // A copy for display: what is enforced is the sealed record's own list.
  const origins = entry.kind !== 'token' && entry.origins ? { origins: entry.origins } : {};
  switch (entry.kind) {
    case 'basic':
      return { username: entry.username, ...origins };
    case 'oauth': {
      const { clientSecret: _, kind: __, ...rest } = entry;
      return { ...rest, hasClientSecret: entry.clientSecret !== undefined };
    }
    default:
      return origins;
  }
}
