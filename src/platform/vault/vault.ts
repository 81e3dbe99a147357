import { randomBytes } from 'node:crypto';
import type { CredentialRecords } from '../../auth/provider.js';
import type { Credential, TokenSet } from '../../auth/store.js';
import { CredentialError } from '../../errors/credential-error.js';
import { PlatformError } from '../errors.js';
import type { CredentialRow, PlatformStore } from '../store/types.js';
import { connectionBinding, credentialChange } from './credential-change.js';
import { keyIdOf, open, seal } from './seal.js';

const TOKEN_PREFIX = 'token:';
/** A user's connection: `connection:<user id>:<credential key>`. */
const CONNECTION_PREFIX = 'connection:';
/** A connect flow in progress: `flow:<id>`. */
const FLOW_PREFIX = 'flow:';
/** Records that are no credential of their own. */
const RECORD_PREFIXES = [TOKEN_PREFIX, CONNECTION_PREFIX, FLOW_PREFIX];

/** What the vault seals: credentials, tokens, and connect flows in progress. */
type Sealed = Credential | TokenSet | { readonly kind: 'flow'; readonly flow: Record<string, unknown> };

/** Where a credential's tokens are kept: the solution's, or one user's connection. */
function tokensName(key: string, user: string | undefined): string {
  return user === undefined ? `${TOKEN_PREFIX}${key}` : `${CONNECTION_PREFIX}${user}:${key}`;
}

/** A user's connection as people who manage it see it: never its tokens. */
export interface ConnectionInfo {
  readonly key: string;
  readonly user: string;
  readonly userName: string;
  /** The provider's account (an email, else its subject), when it said. */
  readonly account: string | null;
  readonly scopes: readonly string[];
  readonly created: string;
  readonly refreshed: string;
}

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

  /**
   * Stores a credential, as `by` may (see `credentialChange`): refused with nothing written, or
   * written, its cached token dropped, and its users' connections dropped when what they belong to
   * changed. Answers how many connections were dropped.
   */
  async put(
    solution: string,
    key: string,
    credential: Credential,
    by: { readonly name: string; readonly admin: boolean },
  ): Promise<number> {
    return this.oneAtATime(solution, key, async () => {
      const before = (await this.read(solution, key)) as Credential | undefined;
      const connected = (await this.connections(solution)).filter((c) => c.key === key);
      const change = credentialChange({
        key,
        before,
        after: credential,
        connections: connected.length,
        admin: by.admin,
      });
      if (!change.allowed) throw new PlatformError(change.code, change.message);
      await this.write(solution, key, credential, by.name);
      // New settings make old tokens meaningless (another client, other scopes).
      await this.store.deleteCredential(solution, `${TOKEN_PREFIX}${key}`);
      if (!change.dropConnections) return 0;
      await this.dropConnections(solution, key);
      return connected.length;
    });
  }

  async delete(solution: string, key: string): Promise<boolean> {
    return this.oneAtATime(solution, key, async () => {
      await this.store.deleteCredential(solution, `${TOKEN_PREFIX}${key}`);
      await this.dropConnections(solution, key);
      return this.store.deleteCredential(solution, key);
    });
  }

  /**
   * A credential's changes and its new connections, one at a time across instances: a connection
   * made while the credential changes is either dropped by the change or sees it (`connect`).
   */
  private oneAtATime<T>(solution: string, key: string, work: () => Promise<T>): Promise<T> {
    return this.store.exclusive(`credential:${solution}:${key}`, work);
  }

  private async dropConnections(solution: string, key: string): Promise<void> {
    for (const c of await this.connections(solution)) {
      if (c.key === key) await this.store.deleteCredential(solution, tokensName(key, c.user));
    }
  }

  async list(solution: string): Promise<CredentialInfo[]> {
    const rows = await this.store.listCredentials(solution);
    const keys = new Set(rows.map((r) => r.key));
    return rows
      .filter((r) => !RECORD_PREFIXES.some((prefix) => r.key.startsWith(prefix)))
      .map((r) => ({
        key: r.key,
        kind: r.kind as Credential['kind'],
        fields: r.meta,
        hasToken: keys.has(`${TOKEN_PREFIX}${r.key}`),
        updated: r.updated,
        updatedBy: r.updatedBy,
      }));
  }

  /**
   * One solution's records, as the credential provider of its executions reads them. Tokens with
   * a `user` are that user's connection (see `connect`): a refresh keeps who connected and as whom.
   */
  records(solution: string): CredentialRecords {
    return {
      get: async (key) => (await this.read(solution, key)) as Credential | undefined,
      getTokens: async (key, user) =>
        (await this.read(solution, tokensName(key, user))) as TokenSet | undefined,
      setTokens: async (key, tokens, user) => {
        const name = tokensName(key, user);
        const meta = user === undefined ? undefined : (await this.store.getCredential(solution, name))?.meta;
        await this.write(
          solution,
          name,
          { kind: 'token', ...tokens },
          'system',
          meta && { ...meta, refreshed: new Date().toISOString() },
        );
      },
      clearTokens: async (key, ifRefreshToken, user) => {
        const name = tokensName(key, user);
        if (ifRefreshToken !== undefined) {
          const stored = (await this.read(solution, name)) as TokenSet | undefined;
          if (stored?.refreshToken !== ifRefreshToken) return false;
        }
        return this.store.deleteCredential(solution, name);
      },
      keys: async () => (await this.list(solution)).map((c) => c.key),
      exclusive: (key, work, user) =>
        this.store.exclusive(`oauth-refresh:${solution}:${key}${user === undefined ? '' : `:${user}`}`, work),
    };
  }

  /**
   * Keeps a user's connection to credential `key`: their tokens, sealed like a credential, with who
   * connected, as which account, the scopes, and when (never the tokens themselves in `meta`). Only
   * while the credential is still what the flow started with (`binding`, see `connectionBinding`):
   * false, and nothing kept, when it was removed or changed meanwhile.
   */
  async connect(
    solution: string,
    key: string,
    user: { id: string; name: string },
    tokens: Omit<TokenSet, 'kind'>,
    about: { account: string | null; scopes: readonly string[] },
    binding: string,
  ): Promise<boolean> {
    return this.oneAtATime(solution, key, async () => {
      const credential = (await this.read(solution, key)) as Credential | undefined;
      if (credential === undefined || connectionBinding(credential) !== binding) return false;
      const now = new Date().toISOString();
      await this.write(solution, tokensName(key, user.id), { kind: 'token', ...tokens }, user.name, {
        user: user.id,
        userName: user.name,
        account: about.account,
        scopes: about.scopes,
        created: now,
        refreshed: now,
      });
      return true;
    });
  }

  /** The connections of a solution's credentials (all, or one user's), without their tokens. */
  async connections(solution: string, user?: string): Promise<ConnectionInfo[]> {
    const rows = await this.store.listCredentials(solution);
    return rows
      .filter((r) => r.key.startsWith(CONNECTION_PREFIX))
      .map((r) => {
        const meta = r.meta as Record<string, unknown>;
        return {
          key: r.key.slice(r.key.indexOf(':', CONNECTION_PREFIX.length) + 1),
          user: String(meta.user),
          userName: String(meta.userName),
          account: typeof meta.account === 'string' ? meta.account : null,
          scopes: Array.isArray(meta.scopes) ? (meta.scopes as string[]) : [],
          created: String(meta.created),
          refreshed: String(meta.refreshed),
        };
      })
      .filter((c) => user === undefined || c.user === user);
  }

  /** A user's connection's tokens (to revoke them at the provider), then gone. */
  async disconnect(solution: string, key: string, user: string): Promise<TokenSet | undefined> {
    const name = tokensName(key, user);
    const tokens = (await this.read(solution, name)) as TokenSet | undefined;
    return (await this.store.deleteCredential(solution, name)) ? tokens : undefined;
  }

  /** A pending connect flow, sealed (its PKCE verifier is a secret), until `takeFlow` or it expires. */
  async putFlow(
    solution: string,
    id: string,
    flow: Record<string, unknown> & { expires: number },
  ): Promise<void> {
    // Only when it expires is readable: what prunes it needs no key.
    await this.write(solution, `${FLOW_PREFIX}${id}`, { kind: 'flow', flow }, 'system', {
      expires: flow.expires,
    });
  }

  /** Drops the solution's flows that expired (never finished, or never confirmed). */
  async pruneFlows(solution: string, now: number): Promise<void> {
    for (const row of await this.store.listCredentials(solution)) {
      const expires = (row.meta as { expires?: unknown }).expires;
      if (row.key.startsWith(FLOW_PREFIX) && typeof expires === 'number' && expires < now)
        await this.store.deleteCredential(solution, row.key);
    }
  }

  /** Every connection of a user, in every solution (the user is removed). */
  async dropUserConnections(user: string): Promise<void> {
    for (const row of await this.store.allCredentials()) {
      if (row.key.startsWith(`${CONNECTION_PREFIX}${user}:`))
        await this.store.deleteCredential(row.solution, row.key);
    }
  }

  /** The flow, once: whoever takes it first (on any instance) has it, no one after. */
  async takeFlow(solution: string, id: string): Promise<Record<string, unknown> | undefined> {
    const name = `${FLOW_PREFIX}${id}`;
    const sealed = await this.read(solution, name);
    if (sealed?.kind !== 'flow') return undefined;
    return (await this.store.deleteCredential(solution, name)) ? sealed.flow : undefined;
  }

  private async write(
    solution: string,
    key: string,
    entry: Sealed,
    by: string,
    meta?: Record<string, unknown>,
  ): Promise<void> {
    const dataKey = randomBytes(32);
    const row: CredentialRow = {
      solution,
      key,
      kind: entry.kind,
      meta: meta ?? publicFields(entry),
      keyId: this.keyId,
      wrappedKey: seal(this.master, dataKey, wrapAad(solution, key)),
      data: seal(dataKey, Buffer.from(JSON.stringify(entry), 'utf8'), recordAad(solution, key, entry.kind)),
      updated: new Date().toISOString(),
      updatedBy: by,
    };
    dataKey.fill(0);
    await this.store.putCredential(row);
  }

  private async read(solution: string, key: string): Promise<Sealed | undefined> {
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
function publicFields(entry: Sealed): Record<string, unknown> {
  // A copy for display: what is enforced is the sealed record's own list.
  const origins =
    entry.kind !== 'token' && entry.kind !== 'flow' && entry.origins ? { origins: entry.origins } : {};
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
