import { UsageError } from '../../errors/restfn-error.js';
import { type DatabaseFiles, DatabaseLease } from './database-lease.js';
import { loadSqlite, type SahPool, type SqliteApi } from './sqlite-api.js';
import { WasmDatabase } from './wasm-database.js';
import { opfsUnavailableReason, webLocks } from './web-apis.js';

export interface OpenedDatabase {
  /** Every use of the database goes through `lease.run(async (db) => ...)`. */
  readonly lease: DatabaseLease;
  /** False when the database lives in memory only (gone on reload): the client should warn. */
  readonly persistent: boolean;
  /** Why it is not persistent. */
  readonly reason?: string;
}

/** The database's file in its pool (the pool is the app's own, so one name is enough). */
const FILE = '/restfn.db';

/**
 * The OPFS SAH pool has no shared memory, so WAL is not available (SQLite leaves the journal mode
 * as it is when asked for WAL, as LocalStore does); of the rollback journals, TRUNCATE keeps the
 * journal's slot in the pool between transactions, where DELETE would give it back and take one
 * again (rewriting the slot's name) at every commit.
 */
const JOURNAL_MODE = 'journal_mode = TRUNCATE';

/**
 * Opens the app's local database in this (dedicated) worker: SQLite WebAssembly with the
 * opfs-sahpool VFS, in a pool named for the app (`restfn-<name>`, its own OPFS directory), shared
 * with the app's other tabs through a lease (database-lease.ts). Where OPFS cannot be used, the
 * database is in memory and `persistent` is false with the reason, never silently.
 */
export async function openWasmDatabase(options: { readonly name: string }): Promise<OpenedDatabase> {
  const { name } = options;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new UsageError(
      `the local database name ${JSON.stringify(name)} is not usable: use 1 to 64 letters, digits, '-' or '_' (it names the app's OPFS directory)`,
    );
  }
  const api = await loadSqlite();
  const unavailable = opfsUnavailableReason();
  if (unavailable) return inMemory(api, name, unavailable);
  const database = new WasmDatabase(api, name);
  const lease = new DatabaseLease(database, poolFiles(api, name), webLocks(), `restfn-db-${name}`);
  try {
    // Opening once now finds a pool that cannot be used before the client relies on it.
    await lease.run(() => undefined);
  } catch (error) {
    await lease.close().catch(() => undefined);
    return inMemory(api, name, (error as Error)?.message ?? String(error));
  }
  return { lease, persistent: true };
}

function inMemory(api: SqliteApi, name: string, reason: string): OpenedDatabase {
  const database = new WasmDatabase(api, name, new api.oo1.DB(':memory:', 'c'));
  const memory: DatabaseFiles = { open: async () => undefined, close: () => undefined };
  return {
    lease: new DatabaseLease(database, memory, undefined, `restfn-db-${name}`),
    persistent: false,
    reason,
  };
}

/** The app's SAH pool: installed on first open, then unpaused and paused around each hold. */
function poolFiles(api: SqliteApi, name: string): DatabaseFiles {
  let pool: SahPool | undefined;
  return {
    async open(database) {
      if (!pool) pool = await api.installOpfsSAHPoolVfs({ name: `restfn-${name}` });
      else if (pool.isPaused()) await pool.unpauseVfs();
      database.attach(new pool.OpfsSAHPoolDb(FILE));
      database.pragma(JOURNAL_MODE);
    },
    close(database) {
      database.detach()?.close();
      pool?.pauseVfs();
    },
  };
}
