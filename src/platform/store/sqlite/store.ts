import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { UsageError } from '../../../errors/restfn-error.js';
import { privateFile } from '../../../local/private-path.js';
import { PlatformError } from '../../errors.js';
import {
  ALLOWED_TARGETS_SETTING,
  changeTargets,
  parseTargets,
  type StoredTargets,
} from '../allowed-targets.js';
import {
  planPublish,
  RETENTION_ACTOR,
  type StoredVersion,
  type VersionLimits,
  versionsToRemove,
} from '../retention.js';
import {
  AUDIT_COLUMN_COUNT,
  AUDIT_COLUMNS,
  type AuditRow,
  auditOf,
  auditValues,
  type CredentialDbRow,
  credentialOf,
  type TokenRow,
  tokenOf,
  type UserRow,
  userOf,
  VERSION_COLUMNS,
  type VersionRow,
  versionOf,
} from '../rows.js';
import type {
  AuditEntry,
  AuditFilter,
  AuditRemoval,
  CredentialRow,
  PlatformStore,
  Role,
  SessionRecord,
  StoreChange,
  TokenRecord,
  UserRecord,
  VersionRecord,
} from '../types.js';
import { MIGRATIONS } from './migrations.js';

/**
 * The platform's state in one SQLite file (`<data>/platform.db`, WAL mode), for a single `restfn
 * serve` process. The methods are async for the contract's sake; the work is synchronous SQL.
 */
export class SqlitePlatformStore implements PlatformStore {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** One process holds the file: its own listeners are everyone who must hear of a change. */
  private readonly listeners = new Set<(change: StoreChange) => void>();
  /** Locks by name: each holder's end (see `exclusive`). */
  private readonly locks = new Map<string, Promise<void>>();
  /** Rate-limit windows by key: in memory, since one process holds the file. */
  private readonly rateLimits = new Map<string, { count: number; resetAtMs: number }>();

  /** The data folder's lock while this process serves on it (see `holdLock`). */
  private lock: Database.Database | undefined;

  constructor(private readonly dataDir: string) {
    // The state holds token and password hashes, sealed credentials and the audit: the owner's only.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
    privateFile(join(dataDir, 'platform.db'));
    this.db = new Database(join(dataDir, 'platform.db'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    // WAL with NORMAL: a commit does not wait for fsync (the file stays consistent; a power cut may
    // lose the last moments' audit lines). FULL made every execution wait for the disk.
    this.db.pragma('synchronous = NORMAL');
    // Deleted credential rows are overwritten, not left in free pages of the file.
    this.db.pragma('secure_delete = ON');
    migrate(this.db);
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(change: StoreChange): void {
    for (const listener of this.listeners) listener(change);
  }

  async countAdmins(): Promise<number> {
    return (this.sql(`SELECT count(*) AS n FROM users WHERE role = 'admin'`).get() as { n: number }).n;
  }

  async createUser(user: Omit<UserRecord, 'created'>): Promise<UserRecord> {
    const created = now();
    this.db.transaction(() => {
      this.sql('INSERT INTO users (id, name, role, password_hash, created) VALUES (?, ?, ?, ?, ?)').run(
        user.id,
        user.name,
        user.role,
        user.passwordHash,
        created,
      );
      for (const s of user.solutions)
        this.sql('INSERT OR IGNORE INTO memberships (user_id, solution) VALUES (?, ?)').run(user.id, s);
    })();
    this.changed({ kind: 'access' });
    return { ...user, created };
  }

  async userByName(name: string): Promise<UserRecord | undefined> {
    return this.user(this.sql('SELECT * FROM users WHERE name = ?').get(name) as UserRow | undefined);
  }

  async userById(id: string): Promise<UserRecord | undefined> {
    return this.user(this.sql('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined);
  }

  async listUsers(): Promise<UserRecord[]> {
    return (this.sql('SELECT * FROM users ORDER BY name').all() as UserRow[]).map((r) => this.user(r)!);
  }

  async addMembership(userId: string, solution: string): Promise<void> {
    this.sql('INSERT OR IGNORE INTO memberships (user_id, solution) VALUES (?, ?)').run(userId, solution);
    this.changed({ kind: 'access' });
  }

  async updateUser(
    id: string,
    change: {
      readonly role?: Role;
      readonly solutions?: readonly string[];
      readonly passwordHash?: string | null;
    },
  ): Promise<UserRecord | undefined> {
    this.db.transaction(() => {
      if (change.role !== undefined) this.sql('UPDATE users SET role = ? WHERE id = ?').run(change.role, id);
      if (change.passwordHash !== undefined) {
        this.sql('UPDATE users SET password_hash = ? WHERE id = ?').run(change.passwordHash, id);
        // A new password signs the user out everywhere.
        this.sql('DELETE FROM sessions WHERE user_id = ?').run(id);
      }
      if (change.solutions !== undefined) {
        this.sql('DELETE FROM memberships WHERE user_id = ?').run(id);
        for (const s of change.solutions)
          this.sql('INSERT OR IGNORE INTO memberships (user_id, solution) VALUES (?, ?)').run(id, s);
      }
    })();
    this.changed({ kind: 'access' });
    return this.userById(id);
  }

  async deleteUser(id: string): Promise<boolean> {
    const deleted = this.sql('DELETE FROM users WHERE id = ?').run(id).changes > 0;
    this.changed({ kind: 'access' });
    return deleted;
  }

  async createToken(token: Omit<TokenRecord, 'created' | 'revoked'>, hash: string): Promise<TokenRecord> {
    const created = now();
    this.sql('INSERT INTO tokens (id, user_id, name, hash, created) VALUES (?, ?, ?, ?, ?)').run(
      token.id,
      token.userId,
      token.name,
      hash,
      created,
    );
    this.changed({ kind: 'access' });
    return { ...token, created, revoked: null };
  }

  async tokenByHash(hash: string): Promise<{ token: TokenRecord; user: UserRecord } | undefined> {
    const row = this.sql('SELECT * FROM tokens WHERE hash = ? AND revoked IS NULL').get(hash) as
      | TokenRow
      | undefined;
    if (!row) return undefined;
    const user = await this.userById(row.user_id);
    return user && { token: tokenOf(row), user };
  }

  async listTokens(userId: string): Promise<TokenRecord[]> {
    return (
      this.sql('SELECT * FROM tokens WHERE user_id = ? ORDER BY created').all(userId) as TokenRow[]
    ).map(tokenOf);
  }

  async revokeToken(id: string): Promise<TokenRecord | undefined> {
    this.sql('UPDATE tokens SET revoked = ? WHERE id = ? AND revoked IS NULL').run(now(), id);
    this.changed({ kind: 'access' });
    const row = this.sql('SELECT * FROM tokens WHERE id = ?').get(id) as TokenRow | undefined;
    return row && tokenOf(row);
  }

  async createSession(hash: string, session: SessionRecord): Promise<void> {
    // Expired sessions go whenever a new one starts: the table stays the size of the live ones.
    this.sql('DELETE FROM sessions WHERE expires <= ?').run(session.created);
    this.sql('INSERT INTO sessions (hash, user_id, csrf_token, created, expires) VALUES (?, ?, ?, ?, ?)').run(
      hash,
      session.userId,
      session.csrfToken,
      session.created,
      session.expires,
    );
  }

  async sessionByHash(
    hash: string,
    now: string,
  ): Promise<{ session: SessionRecord; user: UserRecord } | undefined> {
    const row = this.sql('SELECT * FROM sessions WHERE hash = ? AND expires > ?').get(hash, now) as
      | { user_id: string; csrf_token: string; created: string; expires: string }
      | undefined;
    if (!row) return undefined;
    const user = await this.userById(row.user_id);
    return (
      user && {
        session: {
          userId: row.user_id,
          csrfToken: row.csrf_token,
          created: row.created,
          expires: row.expires,
        },
        user,
      }
    );
  }

  async deleteSession(hash: string): Promise<void> {
    this.sql('DELETE FROM sessions WHERE hash = ?').run(hash);
  }

  async addVersion(
    solution: string,
    files: Readonly<Record<string, string>>,
    by: string,
    digest: string,
    limits?: VersionLimits,
  ): Promise<VersionRecord & { readonly removedVersions: readonly number[] }> {
    const created = now();
    const text = JSON.stringify(files);
    const size = Buffer.byteLength(text);
    // IMMEDIATE: the next number (and the quota) is read and written under one write lock.
    const add = this.db.transaction(() => {
      const { n } = this.sql(
        'SELECT coalesce(max(version), 0) + 1 AS n FROM versions WHERE solution = ?',
      ).get(solution) as { n: number };
      const removed = limits
        ? planPublish(solution, this.storedVersions(solution), n, size, limits).remove
        : [];
      this.sql(
        'INSERT INTO versions (solution, version, created, created_by, digest, files, size) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(solution, n, created, by, digest, text, size);
      this.removeVersions(solution, removed, created);
      return { n, removed };
    });
    const { n, removed } = add.immediate();
    this.changed({ kind: 'version', solution });
    return { solution, version: n, created, createdBy: by, digest, size, removedVersions: removed };
  }

  async retainVersions(solution: string, limits: Omit<VersionLimits, 'maxBytes'>): Promise<number[]> {
    const retain = this.db.transaction(() => {
      const removed = versionsToRemove(this.storedVersions(solution), limits);
      this.removeVersions(solution, removed, now());
      return removed;
    });
    const removed = retain.immediate();
    if (removed.length > 0) this.changed({ kind: 'version', solution });
    return removed;
  }

  private storedVersions(solution: string): StoredVersion[] {
    return (
      this.sql('SELECT version, size, removed FROM versions WHERE solution = ?').all(solution) as Array<{
        version: number;
        size: number;
        removed: string | null;
      }>
    ).map((r) => ({ version: r.version, size: r.size, removed: r.removed !== null }));
  }

  private removeVersions(solution: string, versions: readonly number[], at: string): void {
    const remove = this.sql(
      'UPDATE versions SET files = NULL, removed = ?, removed_by = ? WHERE solution = ? AND version = ? AND removed IS NULL',
    );
    for (const v of versions) remove.run(at, RETENTION_ACTOR, solution, v);
  }

  async currentVersion(solution: string): Promise<VersionRecord | undefined> {
    const row = this.sql(
      `SELECT ${VERSION_COLUMNS} FROM versions WHERE solution = ? ORDER BY version DESC LIMIT 1`,
    ).get(solution) as VersionRow | undefined;
    return row && versionOf(row);
  }

  async versionFiles(solution: string, v: number): Promise<Record<string, string> | undefined> {
    const row = this.sql('SELECT files FROM versions WHERE solution = ? AND version = ?').get(solution, v) as
      | { files: string | null }
      | undefined;
    return row?.files ? (JSON.parse(row.files) as Record<string, string>) : undefined;
  }

  async listSolutions(): Promise<VersionRecord[]> {
    return (
      this.sql(
        `SELECT ${VERSION_COLUMNS} FROM versions v
           WHERE version = (SELECT max(version) FROM versions WHERE solution = v.solution) ORDER BY solution`,
      ).all() as VersionRow[]
    ).map(versionOf);
  }

  async listVersions(solution: string): Promise<VersionRecord[]> {
    return (
      this.sql(`SELECT ${VERSION_COLUMNS} FROM versions WHERE solution = ? ORDER BY version DESC`).all(
        solution,
      ) as VersionRow[]
    ).map(versionOf);
  }

  async putCredential(row: CredentialRow): Promise<void> {
    this.sql(
      `INSERT INTO credentials (solution, key, kind, meta, key_id, wrapped_key, data, updated, updated_by)
         VALUES (@solution, @key, @kind, @meta, @keyId, @wrappedKey, @data, @updated, @updatedBy)
         ON CONFLICT (solution, key) DO UPDATE SET kind = excluded.kind, meta = excluded.meta,
           key_id = excluded.key_id, wrapped_key = excluded.wrapped_key, data = excluded.data,
           updated = excluded.updated, updated_by = excluded.updated_by`,
    ).run({ ...row, meta: JSON.stringify(row.meta) });
  }

  async getCredential(solution: string, key: string): Promise<CredentialRow | undefined> {
    const row = this.sql('SELECT * FROM credentials WHERE solution = ? AND key = ?').get(solution, key) as
      | CredentialDbRow
      | undefined;
    return row && credentialOf(row);
  }

  async listCredentials(solution: string): Promise<CredentialRow[]> {
    return (
      this.sql('SELECT * FROM credentials WHERE solution = ? ORDER BY key').all(solution) as CredentialDbRow[]
    ).map(credentialOf);
  }

  async deleteCredential(solution: string, key: string): Promise<boolean> {
    return this.sql('DELETE FROM credentials WHERE solution = ? AND key = ?').run(solution, key).changes > 0;
  }

  async allCredentials(): Promise<CredentialRow[]> {
    return (this.sql('SELECT * FROM credentials ORDER BY solution, key').all() as CredentialDbRow[]).map(
      credentialOf,
    );
  }

  async rewrap(
    rows: ReadonlyArray<Pick<CredentialRow, 'solution' | 'key' | 'keyId' | 'wrappedKey'>>,
    keyId: string,
  ): Promise<void> {
    const update = this.sql(
      'UPDATE credentials SET key_id = @keyId, wrapped_key = @wrappedKey WHERE solution = @solution AND key = @key',
    );
    this.db.transaction(() => {
      for (const row of rows) update.run(row);
      this.sql(
        `INSERT INTO settings (name, value) VALUES ('master_key_id', ?)
           ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      ).run(keyId);
    })();
  }

  async masterKeyId(keyId: string): Promise<string> {
    this.sql(`INSERT OR IGNORE INTO settings (name, value) VALUES ('master_key_id', ?)`).run(keyId);
    return (this.sql(`SELECT value FROM settings WHERE name = 'master_key_id'`).get() as { value: string })
      .value;
  }

  async allowedTargets(): Promise<StoredTargets> {
    const row = this.sql('SELECT value FROM settings WHERE name = ?').get(ALLOWED_TARGETS_SETTING) as
      | { value: string }
      | undefined;
    return parseTargets(row?.value);
  }

  async changeAllowedTarget(solution: string, host: string, allowed: boolean): Promise<boolean> {
    const changed = this.db.transaction(() => {
      const row = this.sql('SELECT value FROM settings WHERE name = ?').get(ALLOWED_TARGETS_SETTING) as
        | { value: string }
        | undefined;
      const next = changeTargets(parseTargets(row?.value), solution, host, allowed);
      if (!next.changed) return false;
      this.sql(
        `INSERT INTO settings (name, value) VALUES (?, ?)
           ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      ).run(ALLOWED_TARGETS_SETTING, JSON.stringify(next.targets));
      return true;
    })();
    if (changed) this.changed({ kind: 'targets' });
    return changed;
  }

  async rateLimitAdd(
    key: string,
    count: number,
    windowMs: number,
    nowMs: number,
  ): Promise<{ count: number; resetAtMs: number }> {
    let hit = this.rateLimits.get(key);
    if (!hit || hit.resetAtMs <= nowMs) {
      // Bounded: ended windows go first, and a flood of new keys cannot grow the map without end.
      if (this.rateLimits.size >= RATE_LIMIT_KEYS) {
        for (const [k, v] of this.rateLimits) if (v.resetAtMs <= nowMs) this.rateLimits.delete(k);
        if (this.rateLimits.size >= RATE_LIMIT_KEYS) this.rateLimits.clear();
      }
      hit = { count: 0, resetAtMs: nowMs + windowMs };
      this.rateLimits.set(key, hit);
    }
    hit.count += count;
    return { ...hit };
  }

  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    // One process holds the file: a queue per name in its memory is the whole lock.
    const before = this.locks.get(name) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(name, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(name) === settled) this.locks.delete(name);
    }
  }

  async audit(entries: readonly AuditEntry[]): Promise<void> {
    this.insertAudit ??= this.db.transaction((batch: readonly AuditEntry[]) => {
      const insert = this.sql(
        `INSERT INTO audit (${AUDIT_COLUMNS}) VALUES (${Array(AUDIT_COLUMN_COUNT).fill('?').join(', ')})`,
      );
      // Positional values: one row per execution, and binding by name cost a copy and a lookup each.
      for (const e of batch) insert.run(...auditValues(e));
    });
    this.insertAudit(entries);
  }

  /** One transaction per batch of audit rows (made once: making it costs on every batch). */
  private insertAudit: ((entries: readonly AuditEntry[]) => void) | undefined;

  async listAudit(solution: string | null, limit: number, filter: AuditFilter = {}): Promise<AuditEntry[]> {
    const rows = this.sql(
      `SELECT * FROM audit WHERE solution IS @solution
         AND (@action IS NULL OR action = @action)
         AND (@actor IS NULL OR actor = @actor)
         AND (@target IS NULL OR target = @target)
         AND (@outcome IS NULL OR outcome = @outcome)
         AND (@correlationId IS NULL OR correlation_id = @correlationId)
         AND (@actions IS NULL OR action IN (SELECT value FROM json_each(@actions)))
         AND (@notActions IS NULL OR action NOT IN (SELECT value FROM json_each(@notActions)))
       ORDER BY seq DESC LIMIT @limit`,
    ).all({
      solution,
      limit,
      action: filter.action ?? null,
      actor: filter.actor ?? null,
      target: filter.target ?? null,
      outcome: filter.outcome ?? null,
      correlationId: filter.correlationId ?? null,
      actions: filter.actions ? JSON.stringify(filter.actions) : null,
      notActions: filter.notActions ? JSON.stringify(filter.notActions) : null,
    }) as AuditRow[];
    return rows.map(auditOf);
  }

  async auditFloor(keep: number): Promise<number | null> {
    // The rowid's b-tree walked backwards `keep` rows: no row is read.
    const row = this.sql('SELECT seq FROM audit ORDER BY seq DESC LIMIT 1 OFFSET ?').get(keep - 1) as
      | { seq: number }
      | undefined;
    return row?.seq ?? null;
  }

  async removeAudit(rule: AuditRemoval, limit: number): Promise<number> {
    // Only the oldest `limit` rows are looked at (the rowid's order): no index on the time is kept
    // up on every write for retention's sake, and a batch never scans the table.
    return this.sql(
      `DELETE FROM audit WHERE seq IN (SELECT seq FROM audit ORDER BY seq LIMIT @limit)
         AND (seq < @below OR at < @before)`,
    ).run({ limit, below: rule.below ?? 0, before: rule.before ?? '' }).changes;
  }

  async announce(): Promise<void> {
    if (!this.holdLock()) {
      throw new UsageError(
        `another restfn serve is running on ${this.dataDir} (--data): stop it, or give this one another --data`,
        'DATA_IN_USE',
      );
    }
  }

  async whileNoneServes<T>(work: () => Promise<T>): Promise<T> {
    if (!this.holdLock()) {
      throw new UsageError(
        `the platform is running on ${this.dataDir} (--data): stop it first, then rotate the key`,
      );
    }
    try {
      return await work();
    } finally {
      this.lock?.close();
      this.lock = undefined;
    }
  }

  /**
   * Takes the data folder's lock: an exclusive SQLite lock on `serve.lock`, held by this
   * connection until it closes (or the process ends, however it ends: the operating system drops
   * it). False when another process holds it. A pid file could only guess (a reused pid, a file
   * the other process's exit removed); this is the file system's own lock.
   */
  private holdLock(): boolean {
    if (this.lock) return true;
    const path = join(this.dataDir, 'serve.lock');
    privateFile(path);
    const lock = new Database(path, { timeout: 0 });
    try {
      lock.pragma('locking_mode = EXCLUSIVE');
      // The first write takes the exclusive lock; in this mode it is kept after the commit.
      lock.exec('BEGIN EXCLUSIVE; COMMIT');
      this.lock = lock;
      return true;
    } catch (error) {
      lock.close();
      if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
      throw error;
    }
  }

  async ping(): Promise<void> {
    this.sql('SELECT 1').get();
  }

  async probeWrite(): Promise<void> {
    this.sql(
      `INSERT INTO settings (name, value) VALUES ('write_probe', ?)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    ).run(now());
  }

  async close(): Promise<void> {
    this.db.close();
    this.lock?.close();
    this.lock = undefined;
  }

  /** Prepared once per text: compiling a statement costs more than running it. */
  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  private user(row: UserRow | undefined): UserRecord | undefined {
    if (!row) return undefined;
    const solutions = (
      this.sql('SELECT solution FROM memberships WHERE user_id = ? ORDER BY solution').all(row.id) as Array<{
        solution: string;
      }>
    ).map((m) => m.solution);
    return userOf(row, solutions);
  }
}

/** Applies the migrations newer than the file's `user_version`, each in its own transaction. */
function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new PlatformError(
      'STORE_SCHEMA_NEWER',
      `the platform database is at schema version ${current}, newer than this restfn knows (${MIGRATIONS.length}): upgrade restfn`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/** How many rate-limit keys are kept at most. */
const RATE_LIMIT_KEYS = 50_000;

function now(): string {
  return new Date().toISOString();
}
