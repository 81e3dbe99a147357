import pg from 'pg';
import { UsageError } from '../../../errors/restfn-error.js';
import { PlatformError } from '../../errors.js';
import {
  ALLOWED_TARGETS_SETTING,
  changeTargets,
  parseTargets,
  type StoredTargets,
} from '../allowed-targets.js';
import { storeFullError, writeFailureOf } from '../full.js';
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
import { PG_MIGRATIONS } from './migrations.js';

// Advisory locks are (class, key) pairs of 32-bit integers; restfn's classes:
/** Taken while migrating, so instances starting together apply each migration once. */
const MIGRATION_LOCK = 741_322;
/** Taken per solution (key: a hash of its name) while its next version number is chosen. */
const VERSION_LOCK = 741_323;
/** Taken by `exclusive` (key: a hash of the name), for as long as its work runs. */
const NAMED_LOCK = 741_324;
/**
 * Held shared by every serving instance (on its LISTEN connection), and exclusively by a key
 * rotation: a rotation is refused while instances serve, and an instance starts after it.
 */
const SERVING_LOCK = 741_325;
/** The channel instances tell each other of changes on. */
const CHANNEL = 'restfn_changes';
/** How soon a dropped notification connection is tried again. */
const RELISTEN_MS = 1000;

/**
 * The platform's state in PostgreSQL, for several `restfn serve` instances behind one load
 * balancer: every instance reads and writes the same rows, so any of them answers any request.
 * Connection failures become `STORE_UNAVAILABLE` (503), and the pool reconnects by itself once
 * the database is back.
 */
export class PostgresPlatformStore implements PlatformStore {
  private readonly listeners = new Set<(change: StoreChange) => void>();
  /** The connection that LISTENs, opened with the first listener (or `announce`). */
  private listening: pg.Client | undefined;
  /** Settles when the LISTEN connection's first attempt has (or has not) connected. */
  private listened: Promise<void> | undefined;
  /** This process serves the state: its LISTEN connection holds SERVING_LOCK shared. */
  private serving = false;
  private closed = false;

  /**
   * Connections that only hold `exclusive` locks, apart from the pool the locked work queries
   * with: holders waiting on the main pool while holding all its connections would deadlock.
   */
  private readonly lockPool: pg.Pool;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
  ) {
    this.lockPool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000 });
    this.lockPool.on('error', () => undefined);
  }

  /** Connects, and migrates the schema (once across instances starting together). */
  static async open(url: string): Promise<PostgresPlatformStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection the server dropped (a restart) is an event, not a crash: the next query
    // gets a fresh connection, or STORE_UNAVAILABLE while the server is down.
    pool.on('error', () => undefined);
    const store = new PostgresPlatformStore(pool, url);
    try {
      await store.guard(() => migrate(pool));
    } catch (error) {
      await pool.end();
      throw error;
    }
    return store;
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    this.listened ??= this.listen(false);
    return () => this.listeners.delete(listener);
  }

  async announce(): Promise<void> {
    this.serving = true;
    this.listened ??= this.listen(false);
    await this.listened;
  }

  async whileNoneServes<T>(work: () => Promise<T>): Promise<T> {
    const client = await this.guard(() => this.lockPool.connect());
    try {
      const taken = await this.guard(() =>
        client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, 0) AS ok', [SERVING_LOCK]),
      );
      if (!taken.rows[0]?.ok) {
        const serving = await this.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks
             WHERE locktype = 'advisory' AND classid = $1 AND objid = 0 AND objsubid = 2 AND granted`,
          [SERVING_LOCK],
        );
        throw new UsageError(
          `${serving[0]?.n ?? 'some'} restfn serve instance(s) run on this database: stop every one (they hold the current key), then rotate the key`,
        );
      }
      try {
        return await work();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1, 0)', [SERVING_LOCK]).catch(() => undefined);
      }
    } finally {
      client.release();
    }
  }

  /**
   * LISTENs for other instances' changes. A connection that drops (PostgreSQL restarted) is opened
   * again; since notifications sent meanwhile are lost, listeners then hear `all`.
   */
  private async listen(again: boolean): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000 });
    this.listening = client;
    let retried = false;
    const retry = () => {
      if (retried || this.closed) return;
      retried = true;
      void client.end().catch(() => undefined);
      setTimeout(() => void this.listen(true), RELISTEN_MS).unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (message) => {
      try {
        this.emit(JSON.parse(message.payload ?? '') as StoreChange);
      } catch {
        this.emit({ kind: 'all' });
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      // Held for as long as this connection lives (a killed instance's goes with it).
      if (this.serving) await client.query('SELECT pg_advisory_lock_shared($1, 0)', [SERVING_LOCK]);
      if (again) this.emit({ kind: 'all' });
    } catch {
      retry();
    }
  }

  private emit(change: StoreChange): void {
    for (const listener of this.listeners) listener(change);
  }

  /** Tells this instance's listeners at once, and every instance's through NOTIFY. */
  private async changed(change: StoreChange, client?: pg.PoolClient): Promise<void> {
    const text = 'SELECT pg_notify($1, $2)';
    const values = [CHANNEL, JSON.stringify(change)];
    if (client) await client.query(text, values);
    else await this.query(text, values);
    this.emit(change);
  }

  async countAdmins(): Promise<number> {
    const rows = await this.query<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE role = 'admin'`);
    return rows[0]?.n ?? 0;
  }

  async createUser(user: Omit<UserRecord, 'created'>): Promise<UserRecord> {
    const created = now();
    await this.transaction(async (c) => {
      await c.query(
        'INSERT INTO users (id, name, role, password_hash, created) VALUES ($1, $2, $3, $4, $5)',
        [user.id, user.name, user.role, user.passwordHash, created],
      );
      await setMemberships(c, user.id, user.solutions);
      await this.changed({ kind: 'access' }, c);
    });
    return { ...user, created };
  }

  async userByName(name: string): Promise<UserRecord | undefined> {
    return this.user('name', name);
  }

  async userById(id: string): Promise<UserRecord | undefined> {
    return this.user('id', id);
  }

  async listUsers(): Promise<UserRecord[]> {
    const rows = await this.query<UserWithSolutions>(`${USER_SELECT} ORDER BY u.name COLLATE "C"`);
    return rows.map((r) => userOf(r, r.solutions));
  }

  async addMembership(userId: string, solution: string): Promise<void> {
    await this.query('INSERT INTO memberships (user_id, solution) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      userId,
      solution,
    ]);
    await this.changed({ kind: 'access' });
  }

  async updateUser(
    id: string,
    change: {
      readonly role?: Role;
      readonly solutions?: readonly string[];
      readonly passwordHash?: string | null;
    },
  ): Promise<UserRecord | undefined> {
    await this.transaction(async (c) => {
      if (change.role !== undefined)
        await c.query('UPDATE users SET role = $1 WHERE id = $2', [change.role, id]);
      if (change.passwordHash !== undefined) {
        await c.query('UPDATE users SET password_hash = $1 WHERE id = $2', [change.passwordHash, id]);
        // A new password signs the user out everywhere.
        await c.query('DELETE FROM sessions WHERE user_id = $1', [id]);
      }
      if (change.solutions !== undefined) {
        await c.query('DELETE FROM memberships WHERE user_id = $1', [id]);
        await setMemberships(c, id, change.solutions);
      }
      await this.changed({ kind: 'access' }, c);
    });
    return this.userById(id);
  }

  async deleteUser(id: string): Promise<boolean> {
    const deleted = (await this.run('DELETE FROM users WHERE id = $1', [id])) > 0;
    await this.changed({ kind: 'access' });
    return deleted;
  }

  async createToken(token: Omit<TokenRecord, 'created' | 'revoked'>, hash: string): Promise<TokenRecord> {
    const created = now();
    await this.query('INSERT INTO tokens (id, user_id, name, hash, created) VALUES ($1, $2, $3, $4, $5)', [
      token.id,
      token.userId,
      token.name,
      hash,
      created,
    ]);
    await this.changed({ kind: 'access' });
    return { ...token, created, revoked: null };
  }

  async tokenByHash(hash: string): Promise<{ token: TokenRecord; user: UserRecord } | undefined> {
    const rows = await this.query<TokenRow>('SELECT * FROM tokens WHERE hash = $1 AND revoked IS NULL', [
      hash,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    const user = await this.userById(row.user_id);
    return user && { token: tokenOf(row), user };
  }

  async listTokens(userId: string): Promise<TokenRecord[]> {
    const rows = await this.query<TokenRow>('SELECT * FROM tokens WHERE user_id = $1 ORDER BY created, id', [
      userId,
    ]);
    return rows.map(tokenOf);
  }

  async revokeToken(id: string): Promise<TokenRecord | undefined> {
    await this.query('UPDATE tokens SET revoked = $1 WHERE id = $2 AND revoked IS NULL', [now(), id]);
    await this.changed({ kind: 'access' });
    const rows = await this.query<TokenRow>('SELECT * FROM tokens WHERE id = $1', [id]);
    return rows[0] && tokenOf(rows[0]);
  }

  async createSession(hash: string, session: SessionRecord): Promise<void> {
    // Expired sessions go whenever a new one starts: the table stays the size of the live ones.
    await this.transaction(async (c) => {
      await c.query('DELETE FROM sessions WHERE expires <= $1', [session.created]);
      await c.query(
        'INSERT INTO sessions (hash, user_id, csrf_token, created, expires) VALUES ($1, $2, $3, $4, $5)',
        [hash, session.userId, session.csrfToken, session.created, session.expires],
      );
    });
  }

  async sessionByHash(
    hash: string,
    at: string,
  ): Promise<{ session: SessionRecord; user: UserRecord } | undefined> {
    const rows = await this.query<{ user_id: string; csrf_token: string; created: string; expires: string }>(
      'SELECT * FROM sessions WHERE hash = $1 AND expires > $2',
      [hash, at],
    );
    const row = rows[0];
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
    await this.query('DELETE FROM sessions WHERE hash = $1', [hash]);
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
    // Two instances publishing the same solution at once: the lock orders them, so each gets the
    // next number (and sees the other's version in its quota) instead of one failing on the key.
    const { n, removed } = await this.transaction(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [VERSION_LOCK, solution]);
      const next = await c.query<{ n: number }>(
        'SELECT coalesce(max(version), 0) + 1 AS n FROM versions WHERE solution = $1',
        [solution],
      );
      const n = next.rows[0]!.n;
      const removed = limits
        ? planPublish(solution, await storedVersions(c, solution), n, size, limits).remove
        : [];
      await c.query(
        'INSERT INTO versions (solution, version, created, created_by, digest, files, size) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [solution, n, created, by, digest, text, size],
      );
      await removeVersions(c, solution, removed, created);
      await this.changed({ kind: 'version', solution }, c);
      return { n, removed };
    });
    return { solution, version: n, created, createdBy: by, digest, size, removedVersions: removed };
  }

  async retainVersions(solution: string, limits: Omit<VersionLimits, 'maxBytes'>): Promise<number[]> {
    return this.transaction(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [VERSION_LOCK, solution]);
      const removed = versionsToRemove(await storedVersions(c, solution), limits);
      await removeVersions(c, solution, removed, now());
      if (removed.length > 0) await this.changed({ kind: 'version', solution }, c);
      return removed;
    });
  }

  async currentVersion(solution: string): Promise<VersionRecord | undefined> {
    const rows = await this.query<VersionRow>(
      `SELECT ${VERSION_COLUMNS} FROM versions WHERE solution = $1 ORDER BY version DESC LIMIT 1`,
      [solution],
    );
    return rows[0] && versionOf(rows[0]);
  }

  async versionFiles(solution: string, v: number): Promise<Record<string, string> | undefined> {
    const rows = await this.query<{ files: string | null }>(
      'SELECT files FROM versions WHERE solution = $1 AND version = $2',
      [solution, v],
    );
    return rows[0]?.files ? (JSON.parse(rows[0].files) as Record<string, string>) : undefined;
  }

  async listSolutions(): Promise<VersionRecord[]> {
    const rows = await this.query<VersionRow>(
      `SELECT DISTINCT ON (solution) ${VERSION_COLUMNS} FROM versions
         ORDER BY solution, version DESC`,
    );
    return rows.map(versionOf);
  }

  async listVersions(solution: string): Promise<VersionRecord[]> {
    const rows = await this.query<VersionRow>(
      `SELECT ${VERSION_COLUMNS} FROM versions WHERE solution = $1 ORDER BY version DESC`,
      [solution],
    );
    return rows.map(versionOf);
  }

  async putCredential(row: CredentialRow): Promise<void> {
    await this.query(
      `INSERT INTO credentials (solution, key, kind, meta, key_id, wrapped_key, data, updated, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (solution, key) DO UPDATE SET kind = excluded.kind, meta = excluded.meta,
           key_id = excluded.key_id, wrapped_key = excluded.wrapped_key, data = excluded.data,
           updated = excluded.updated, updated_by = excluded.updated_by`,
      [
        row.solution,
        row.key,
        row.kind,
        JSON.stringify(row.meta),
        row.keyId,
        row.wrappedKey,
        row.data,
        row.updated,
        row.updatedBy,
      ],
    );
  }

  async getCredential(solution: string, key: string): Promise<CredentialRow | undefined> {
    const rows = await this.query<CredentialDbRow>(
      'SELECT * FROM credentials WHERE solution = $1 AND key = $2',
      [solution, key],
    );
    return rows[0] && credentialOf(rows[0]);
  }

  async listCredentials(solution: string): Promise<CredentialRow[]> {
    const rows = await this.query<CredentialDbRow>(
      'SELECT * FROM credentials WHERE solution = $1 ORDER BY key COLLATE "C"',
      [solution],
    );
    return rows.map(credentialOf);
  }

  async deleteCredential(solution: string, key: string): Promise<boolean> {
    return (await this.run('DELETE FROM credentials WHERE solution = $1 AND key = $2', [solution, key])) > 0;
  }

  async allCredentials(): Promise<CredentialRow[]> {
    const rows = await this.query<CredentialDbRow>(
      'SELECT * FROM credentials ORDER BY solution COLLATE "C", key COLLATE "C"',
    );
    return rows.map(credentialOf);
  }

  async rewrap(
    rows: ReadonlyArray<Pick<CredentialRow, 'solution' | 'key' | 'keyId' | 'wrappedKey'>>,
    keyId: string,
  ): Promise<void> {
    await this.transaction(async (c) => {
      for (const row of rows) {
        await c.query(
          'UPDATE credentials SET key_id = $1, wrapped_key = $2 WHERE solution = $3 AND key = $4',
          [row.keyId, row.wrappedKey, row.solution, row.key],
        );
      }
      await c.query(
        `INSERT INTO settings (name, value) VALUES ('master_key_id', $1)
           ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
        [keyId],
      );
    });
  }

  async masterKeyId(keyId: string): Promise<string> {
    // Two statements: the SELECT's own snapshot sees the row another instance committed while this
    // INSERT waited on it (one statement's snapshot would not).
    await this.query(
      `INSERT INTO settings (name, value) VALUES ('master_key_id', $1) ON CONFLICT (name) DO NOTHING`,
      [keyId],
    );
    const rows = await this.query<{ value: string }>(
      `SELECT value FROM settings WHERE name = 'master_key_id'`,
    );
    return rows[0]!.value;
  }

  async allowedTargets(): Promise<StoredTargets> {
    const rows = await this.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [
      ALLOWED_TARGETS_SETTING,
    ]);
    return parseTargets(rows[0]?.value);
  }

  async changeAllowedTarget(solution: string, host: string, allowed: boolean): Promise<boolean> {
    return this.transaction(async (c) => {
      // The row first, then held (FOR UPDATE): two admins' changes at once are made one after the other.
      await c.query(`INSERT INTO settings (name, value) VALUES ($1, '{}') ON CONFLICT (name) DO NOTHING`, [
        ALLOWED_TARGETS_SETTING,
      ]);
      const rows = (
        await c.query<{ value: string }>('SELECT value FROM settings WHERE name = $1 FOR UPDATE', [
          ALLOWED_TARGETS_SETTING,
        ])
      ).rows;
      const next = changeTargets(parseTargets(rows[0]?.value), solution, host, allowed);
      if (!next.changed) return false;
      await c.query('UPDATE settings SET value = $1 WHERE name = $2', [
        JSON.stringify(next.targets),
        ALLOWED_TARGETS_SETTING,
      ]);
      await this.changed({ kind: 'targets' }, c);
      return true;
    });
  }

  async rateLimitAdd(
    key: string,
    count: number,
    windowMs: number,
    nowMs: number,
  ): Promise<{ count: number; resetAtMs: number }> {
    // Now and then, windows long over are swept (a row per token or address would otherwise stay).
    if (Math.random() < 0.01)
      await this.query('DELETE FROM rate_limits WHERE reset_at < $1', [nowMs - windowMs]);
    const rows = await this.query<{ count: number; reset_at: string }>(
      `INSERT INTO rate_limits (key, count, reset_at) VALUES ($1, $4, $2::bigint + $3::bigint)
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN rate_limits.reset_at <= $2 THEN $4 ELSE rate_limits.count + $4 END,
           reset_at = CASE WHEN rate_limits.reset_at <= $2 THEN $2::bigint + $3::bigint ELSE rate_limits.reset_at END
         RETURNING count, reset_at`,
      [key, nowMs, windowMs, count],
    );
    const row = rows[0]!;
    return { count: row.count, resetAtMs: Number(row.reset_at) };
  }

  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    const client = await this.guard(() => this.lockPool.connect());
    try {
      // A transaction-scoped lock: released at COMMIT, or by the server when this connection
      // drops (an instance killed mid-refresh does not hold it forever).
      await this.guard(async () => {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [NAMED_LOCK, name]);
      });
      try {
        return await work();
      } finally {
        await client.query('COMMIT').catch(() => undefined);
      }
    } finally {
      client.release();
    }
  }

  async audit(entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // One statement for the batch: the audit log writes many lines at once.
    const columns = AUDIT_COLUMN_COUNT;
    const values: unknown[] = [];
    const tuples = entries.map((e, i) => {
      values.push(...auditValues(e));
      return `(${Array.from({ length: columns }, (_, k) => `$${i * columns + k + 1}`).join(', ')})`;
    });
    await this.query(`INSERT INTO audit (${AUDIT_COLUMNS}) VALUES ${tuples.join(', ')}`, values);
  }

  async listAudit(solution: string | null, limit: number, filter: AuditFilter = {}): Promise<AuditEntry[]> {
    // Two spellings, so that each uses the (solution, seq) index.
    const rows = await this.query<AuditRow>(
      `SELECT * FROM audit WHERE ${solution === null ? '$1::text IS NULL AND solution IS NULL' : 'solution = $1'}
         AND ($2::text IS NULL OR target = $2)
         AND ($3::text IS NULL OR outcome = $3)
         AND ($4::text IS NULL OR correlation_id = $4)
         AND ($6::text IS NULL OR action = $6)
         AND ($7::text IS NULL OR actor = $7)
         AND ($8::text[] IS NULL OR action = ANY($8))
         AND ($9::text[] IS NULL OR NOT (action = ANY($9)))
       ORDER BY seq DESC LIMIT $5`,
      [
        solution,
        filter.target ?? null,
        filter.outcome ?? null,
        filter.correlationId ?? null,
        limit,
        filter.action ?? null,
        filter.actor ?? null,
        filter.actions ?? null,
        filter.notActions ?? null,
      ],
    );
    return rows.map(auditOf);
  }

  async auditFloor(keep: number): Promise<number | null> {
    const rows = await this.query<{ seq: string }>(
      'SELECT seq FROM audit ORDER BY seq DESC LIMIT 1 OFFSET $1',
      [keep - 1],
    );
    return rows[0] ? Number(rows[0].seq) : null;
  }

  async removeAudit(rule: AuditRemoval, limit: number): Promise<number> {
    // Only the oldest `limit` rows are looked at (the primary key's order): no index on the time
    // is kept up on every write for retention's sake. Times compared as the ISO text they are.
    return this.run(
      `DELETE FROM audit WHERE seq IN (SELECT seq FROM audit ORDER BY seq LIMIT $1)
         AND (seq < $2 OR at COLLATE "C" < $3)`,
      [limit, rule.below ?? 0, rule.before ?? ''],
    );
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async probeWrite(): Promise<void> {
    await this.query(
      `INSERT INTO settings (name, value) VALUES ('write_probe', $1)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      [now()],
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listening?.end().catch(() => undefined);
    await Promise.all([this.pool.end(), this.lockPool.end()]);
  }

  private async user(by: 'id' | 'name', value: string): Promise<UserRecord | undefined> {
    const rows = await this.query<UserWithSolutions>(`${USER_SELECT} WHERE u.${by} = $1`, [value]);
    return rows[0] && userOf(rows[0], rows[0].solutions);
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    return this.guard(async () => (await this.pool.query<R>(text, values)).rows);
  }

  /** The number of rows a change touched. */
  private async run(text: string, values: unknown[]): Promise<number> {
    return this.guard(async () => (await this.pool.query(text, values)).rowCount ?? 0);
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    });
  }

  /**
   * A database that cannot be reached is `STORE_UNAVAILABLE`, one that refuses the connection (the
   * URL's user, password or database) `STORE_REFUSED`; anything else stays what it is.
   */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUnavailable(error)) {
        throw new PlatformError(
          'STORE_UNAVAILABLE',
          'the platform database (PostgreSQL) cannot be reached; try again shortly',
        );
      }
      // A full disk is the operator's to fix, not a bug: STORE_FULL (507), never INTERNAL.
      const full = writeFailureOf(error);
      if (full) throw storeFullError(full);
      if (isRefused(error)) {
        // PostgreSQL's own words name the user or the database, never the password.
        throw new PlatformError(
          'STORE_REFUSED',
          `the platform database (PostgreSQL) refused the connection (${(error as Error).message}): check the user, password and database name of the database URL (--database or RESTFN_DATABASE_URL)`,
        );
      }
      throw error;
    }
  }
}

/**
 * Applies the migrations newer than `restfn_schema`'s version, each in its own transaction, under
 * an advisory lock: instances that start together wait for the first one, then find nothing to do.
 */
async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1, 0)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS restfn_schema (version INTEGER NOT NULL)');
      const found = await client.query<{ version: number }>('SELECT version FROM restfn_schema');
      let current = found.rows[0]?.version ?? 0;
      if (found.rows.length === 0) await client.query('INSERT INTO restfn_schema (version) VALUES (0)');
      if (current > PG_MIGRATIONS.length) {
        throw new PlatformError(
          'STORE_SCHEMA_NEWER',
          `the platform database is at schema version ${current}, newer than this restfn knows (${PG_MIGRATIONS.length}): upgrade restfn`,
        );
      }
      for (; current < PG_MIGRATIONS.length; current++) {
        await client.query('BEGIN');
        try {
          await client.query(PG_MIGRATIONS[current]!);
          await client.query('UPDATE restfn_schema SET version = $1', [current + 1]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, 0)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

/** Connection-level failures: the server is down, restarting, refusing, or the network is. */
function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') {
    // pg's own: a connect timeout, a connection ended while a query was on it.
    const message = (error as Error)?.message ?? '';
    return /timeout exceeded when trying to connect|Connection terminated/.test(message);
  }
  // Socket errors, and SQLSTATE classes 08 (connection exception) and 57P (operator intervention:
  // shutdown, cannot connect now).
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN'].includes(
      code,
    ) ||
    code.startsWith('08') ||
    code.startsWith('57P')
  );
}

/**
 * The server answered, and said no: SQLSTATE class 28 (invalid authorization: a wrong password,
 * no such role, pg_hba.conf), 3D000 (no such database), 42501 (no CONNECT or no rights).
 */
function isRefused(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('28') || code === '3D000' || code === '42501');
}

async function storedVersions(c: pg.PoolClient, solution: string): Promise<StoredVersion[]> {
  const { rows } = await c.query<{ version: number; size: string; removed: string | null }>(
    'SELECT version, size, removed FROM versions WHERE solution = $1',
    [solution],
  );
  return rows.map((r) => ({ version: r.version, size: Number(r.size), removed: r.removed !== null }));
}

async function removeVersions(
  c: pg.PoolClient,
  solution: string,
  versions: readonly number[],
  at: string,
): Promise<void> {
  if (versions.length === 0) return;
  await c.query(
    `UPDATE versions SET files = NULL, removed = $1, removed_by = $2
       WHERE solution = $3 AND version = ANY($4::int[]) AND removed IS NULL`,
    [at, RETENTION_ACTOR, solution, versions],
  );
}

async function setMemberships(c: pg.PoolClient, userId: string, solutions: readonly string[]): Promise<void> {
  for (const s of solutions) {
    await c.query('INSERT INTO memberships (user_id, solution) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      userId,
      s,
    ]);
  }
}

function now(): string {
  return new Date().toISOString();
}

/** A user with their solutions, in one query. */
const USER_SELECT = `SELECT u.*, coalesce(
    (SELECT array_agg(m.solution ORDER BY m.solution COLLATE "C") FROM memberships m WHERE m.user_id = u.id),
    '{}') AS solutions
  FROM users u`;

/** A user's row with their solutions, as USER_SELECT gives it. */
type UserWithSolutions = UserRow & { solutions: string[] };
