/**
 * The platform's storage contract: everything the server keeps, behind one interface, so SQLite
 * (one process, no other service) and PostgreSQL (several processes) are interchangeable. Every
 * method is asynchronous because a networked engine is; no SQL lives outside `store/`.
 * `test/platform/store-contract.ts` is the suite every engine passes.
 */

import type { VersionLimits } from './retention.js';

export type Role = 'admin' | 'author' | 'user';
export const ROLES: readonly Role[] = ['admin', 'author', 'user'];

export interface UserRecord {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  /** argon2id; null for a user who only uses API tokens. */
  readonly passwordHash: string | null;
  /** The solutions the user belongs to (an admin sees all of them whatever this says). */
  readonly solutions: readonly string[];
  readonly created: string;
}

export interface TokenRecord {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly created: string;
  readonly revoked: string | null;
}

/** A console sign-in: stored by the SHA-256 of its cookie value, with its CSRF token. */
export interface SessionRecord {
  readonly userId: string;
  readonly csrfToken: string;
  readonly created: string;
  readonly expires: string;
}

export interface VersionRecord {
  readonly solution: string;
  readonly version: number;
  readonly created: string;
  readonly createdBy: string;
  /** SHA-256 of the files, in path order: the same upload twice has the same digest. */
  readonly digest: string;
  /** Bytes of the stored files (what counts against `--max-solution-mb`). */
  readonly size: number;
  /** Set once its files are removed (`--keep-versions`): when, and by whom (`retention`). */
  readonly removed?: { readonly at: string; readonly by: string };
}

/**
 * One credential as stored: the non-secret fields in clear (what `GET .../credentials` shows),
 * the rest encrypted under a data key of its own, wrapped by the master key `keyId`.
 */
export interface CredentialRow {
  readonly solution: string;
  readonly key: string;
  /** `secret`, `basic`, `oauth`, or `token` (an OAuth credential's cached tokens). */
  readonly kind: string;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly keyId: string;
  readonly wrappedKey: Buffer;
  readonly data: Buffer;
  readonly updated: string;
  readonly updatedBy: string;
}

export interface AuditEntry {
  readonly at: string;
  /** The user's name, or `system`. */
  readonly actor: string;
  readonly solution: string | null;
  /** `publish`, `credential.put`, `credential.delete`, `execute`, `user.add`, `token.create`, ... */
  readonly action: string;
  /** What it was done to: a function, a credential key, a user name. Never a value. */
  readonly target: string | null;
  /** `ok`, or the error code. */
  readonly outcome: string;
  readonly correlationId: string | null;
  readonly durationMs: number | null;
  /** A failure's masked message, title and description (JSON); never a value. */
  readonly detail?: string | null;
}

/** Which old audit entries retention removes (`PlatformStore.removeAudit`). */
export interface AuditRemoval {
  /** Entries written before this time (ISO, as `AuditEntry.at`). */
  readonly before?: string;
  /** Entries older than this floor (`PlatformStore.auditFloor`). */
  readonly below?: number;
}

/** What the audit can be narrowed to. */
export interface AuditFilter {
  readonly action?: string;
  readonly actor?: string;
  readonly target?: string;
  readonly outcome?: string;
  readonly correlationId?: string;
  /** Only entries whose action is one of these (a kind of entry: the executions). */
  readonly actions?: readonly string[];
  /** Only entries whose action is none of these (everything but the executions: the changes). */
  readonly notActions?: readonly string[];
}

/**
 * A change other instances must hear of, because they keep lookups in memory: a solution's new
 * version, or users' access (tokens, roles, memberships). `all`: changes may have been missed
 * (the notification channel dropped), so everything kept must be looked up again.
 */
export type StoreChange =
  | { readonly kind: 'version'; readonly solution: string }
  | { readonly kind: 'access' }
  /** The private targets an admin allowed through the API. */
  | { readonly kind: 'targets' }
  | { readonly kind: 'all' };

export interface PlatformStore {
  /**
   * Calls `listener` after each change committed through any store on the same state (on SQLite,
   * the one process; on PostgreSQL, every instance, by LISTEN/NOTIFY). Returns the unsubscribe.
   */
  onChange(listener: (change: StoreChange) => void): () => void;

  /**
   * Marks this process as an instance serving the state until it closes (`restfn serve`; called
   * before `onChange`), so that `whileNoneServes` refuses meanwhile. Waits while such work runs. On SQLite, takes the data
   * folder's lock: a second process serving on the same folder is refused (`DATA_IN_USE`).
   */
  announce(): Promise<void>;
  /**
   * Runs `work` (a master key rotation) while no instance serves the state, none starting
   * meanwhile; refused (`USAGE`) while some do. On SQLite, under the data folder's lock.
   */
  whileNoneServes<T>(work: () => Promise<T>): Promise<T>;

  // Users and their solutions.
  countAdmins(): Promise<number>;
  createUser(user: Omit<UserRecord, 'created'>): Promise<UserRecord>;
  userByName(name: string): Promise<UserRecord | undefined>;
  userById(id: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<UserRecord[]>;
  addMembership(userId: string, solution: string): Promise<void>;
  /** Changes what is given; `solutions` replaces the memberships. */
  updateUser(
    id: string,
    change: {
      readonly role?: Role;
      readonly solutions?: readonly string[];
      readonly passwordHash?: string | null;
    },
  ): Promise<UserRecord | undefined>;
  /** Removes the user with their tokens, sessions and memberships. */
  deleteUser(id: string): Promise<boolean>;

  // API tokens: only their SHA-256 is kept.
  createToken(token: Omit<TokenRecord, 'created' | 'revoked'>, hash: string): Promise<TokenRecord>;
  /** The live (not revoked) token with this hash, and its user. */
  tokenByHash(hash: string): Promise<{ token: TokenRecord; user: UserRecord } | undefined>;
  listTokens(userId: string): Promise<TokenRecord[]>;
  revokeToken(id: string): Promise<TokenRecord | undefined>;

  // Console sessions: only the SHA-256 of the cookie value is kept.
  createSession(hash: string, session: SessionRecord): Promise<void>;
  /** The live (not expired at `now`) session with this hash, and its user. */
  sessionByHash(hash: string, now: string): Promise<{ session: SessionRecord; user: UserRecord } | undefined>;
  deleteSession(hash: string): Promise<void>;

  // Published solutions: immutable versions.
  /**
   * Adds the next version of `solution` (1 for a new one) with its files, atomically. With
   * `limits`, in the same transaction: refused with `SOLUTION_QUOTA` (nothing written) when the
   * versions kept would pass the quota, and the versions past `keep` (not in use) are removed
   * (`removedVersions`), as `retainVersions` does.
   */
  addVersion(
    solution: string,
    files: Readonly<Record<string, string>>,
    by: string,
    digest: string,
    limits?: VersionLimits,
  ): Promise<VersionRecord & { readonly removedVersions: readonly number[] }>;
  /**
   * Removes the versions of `solution` past the newest `keep`, except those in use: their files
   * go, their row stays, marked removed by `retention`. The numbers removed.
   */
  retainVersions(solution: string, limits: Omit<VersionLimits, 'maxBytes'>): Promise<number[]>;
  currentVersion(solution: string): Promise<VersionRecord | undefined>;
  /** A version's files; undefined for one that does not exist or was removed. */
  versionFiles(solution: string, version: number): Promise<Record<string, string> | undefined>;
  listSolutions(): Promise<VersionRecord[]>;
  /** Every version of `solution` (removed ones too), newest first. */
  listVersions(solution: string): Promise<VersionRecord[]>;

  // Credentials (encrypted by the vault before they get here).
  putCredential(row: CredentialRow): Promise<void>;
  getCredential(solution: string, key: string): Promise<CredentialRow | undefined>;
  listCredentials(solution: string): Promise<CredentialRow[]>;
  deleteCredential(solution: string, key: string): Promise<boolean>;
  /** Every credential row, for re-wrapping under a new master key. */
  allCredentials(): Promise<CredentialRow[]>;
  /**
   * Replaces the wrapped data keys of many rows in one transaction (a key rotation), and records
   * `keyId` as the master key's.
   */
  rewrap(
    rows: ReadonlyArray<Pick<CredentialRow, 'solution' | 'key' | 'keyId' | 'wrappedKey'>>,
    keyId: string,
  ): Promise<void>;
  /**
   * The id of the master key this state is sealed under, as recorded at its first start; with none
   * recorded yet, records `keyId` and returns it (of instances starting together, one records).
   */
  masterKeyId(keyId: string): Promise<string>;

  // Private targets allowed through the API (`restfn targets add`): solution -> hosts.
  allowedTargets(): Promise<Readonly<Record<string, readonly string[]>>>;
  /** Adds (`allowed`) or removes `host` for `solution`, atomically; whether the list changed. */
  changeAllowedTarget(solution: string, host: string, allowed: boolean): Promise<boolean>;

  // Rate limits (per token, per address): one count per fixed window.
  /**
   * Adds `count` requests to `key`'s current window (a new window of `windowMs` starts when the
   * last one ended at `nowMs`); the window's total so far, from every instance on the same state,
   * and when it ends.
   */
  rateLimitAdd(
    key: string,
    count: number,
    windowMs: number,
    nowMs: number,
  ): Promise<{ count: number; resetAtMs: number }>;

  /**
   * Runs `work` while holding the lock `name`, which one caller at a time holds across every
   * instance on the same state (an OAuth token refresh happens once in a cluster).
   */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T>;

  // Audit.
  /** Appends entries, in one transaction. */
  audit(entries: readonly AuditEntry[]): Promise<void>;
  /** A solution's entries, newest first; `null`: the platform's own (sign-ins, users, tokens, denials). */
  listAudit(solution: string | null, limit: number, filter?: AuditFilter): Promise<AuditEntry[]>;
  /**
   * Audit retention (`restfn serve --audit-max-rows`): where the newest `keep` entries begin (the
   * order of writing), or `null` when there are no more than `keep`.
   */
  auditFloor(keep: number): Promise<number | null>;
  /**
   * Removes, of the oldest `limit` entries, those written before `rule.before` (an ISO time) or
   * older than the floor `rule.below`; the number removed. One small batch: retention calls it
   * until it removes nothing.
   */
  removeAudit(rule: AuditRemoval, limit: number): Promise<number>;

  /** Resolves when the state can be read now (a health check); rejects with the store's error. */
  ping(): Promise<void>;
  /**
   * Resolves when the state takes a write now (one small row; a health check's probe); rejects
   * with the store's error (a full or read-only disk: see `store/full.ts`).
   */
  probeWrite(): Promise<void>;

  close(): Promise<void>;
}
