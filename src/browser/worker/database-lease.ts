import { RestfnError } from '../../errors/restfn-error.js';
import type { WasmDatabase } from './wasm-database.js';
import type { LockManager } from './web-apis.js';

/** Opens and closes the files of a database: the OPFS pool's, or nothing for one in memory. */
export interface DatabaseFiles {
  /** Takes the files (unpausing the VFS) and attaches a connection to `database`. */
  open(database: WasmDatabase): Promise<void>;
  /** Detaches and closes the connection and lets go of the files (pausing the VFS). */
  close(database: WasmDatabase): void;
}

/**
 * The right to use an app's database in this worker. The OPFS pool's files can be open in ONE
 * worker at a time, and every tab of the app has its own worker, so the tabs take turns:
 *
 * - `run(op)` runs `op` with the database, one operation at a time in this worker, and the whole
 *   operation inside the Web Lock `restfn-db-<name>`: work that awaits the network between its SQL
 *   keeps the files for its whole duration, so no other tab writes in between.
 * - This worker keeps the lock (and the files open) between operations while no one else asks,
 *   so a single tab pays for opening only once. After each operation it asks the lock manager
 *   whether another tab is waiting (`navigator.locks.query()`); if one is, it closes the
 *   connection, pauses the VFS and lets the lock go.
 * - A tab that finds the lock held while the holder is idle tells it on a BroadcastChannel of the
 *   same name, since an idle holder runs no operation after which it would look.
 *
 * The `WasmDatabase` stays the same object across hand-overs (see WasmDatabase.attach), so what the
 * local logic built on it keeps working when this worker takes the files back.
 */
export class DatabaseLease {
  private queue: Promise<unknown> = Promise.resolve();
  private held: (() => void) | undefined;
  private closed = false;
  private readonly channel: InstanceType<typeof BroadcastChannel> | undefined;

  constructor(
    readonly database: WasmDatabase,
    private readonly files: DatabaseFiles,
    /** Web Locks, or undefined for a database only this worker can see (in memory). */
    private readonly locks: LockManager | undefined,
    readonly lockName: string,
  ) {
    if (locks) {
      this.channel = new BroadcastChannel(lockName);
      this.channel.onmessage = () => {
        void this.enqueue(() => this.handOver(true));
      };
    }
  }

  /** Runs `op` holding the database (see the class comment); its result or failure is run's. */
  run<T>(op: (database: WasmDatabase) => Promise<T> | T): Promise<T> {
    return this.enqueue(async () => {
      if (this.closed) throw new TypeError('The database connection is not open');
      await this.acquire();
      try {
        return await op(this.database);
      } finally {
        await this.handOver(false);
      }
    });
  }

  /** Closes the database and lets go of the files and the lock for good. */
  close(): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return;
      this.closed = true;
      if (this.held || !this.locks) this.files.close(this.database);
      this.database.close();
      this.release();
      this.channel?.close();
    });
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async acquire(): Promise<void> {
    if (!this.locks || this.held) return;
    const locks = this.locks;
    await new Promise<void>((granted, failed) => {
      locks
        .request(this.lockName, async () => {
          try {
            await this.files.open(this.database);
          } catch (error) {
            // Nothing half-open stays behind the released lock.
            try {
              this.files.close(this.database);
            } catch {}
            failed(
              new RestfnError(
                'DATABASE_UNAVAILABLE',
                `the local database ${this.database.label} could not be opened in the Origin Private File System (${(error as Error)?.message ?? error}); close the app's other tabs and reload, or clear the site's storage`,
                { cause: error },
              ),
            );
            return;
          }
          // Held until handOver() or close() lets go.
          await new Promise<void>((release) => {
            this.held = release;
            granted();
          });
        })
        .catch(failed);
      // After requesting: a holder that is idle hears this and lets go.
      this.channel?.postMessage('waiting');
    });
  }

  /** After an operation (or when told): lets go when another tab waits for the lock, or when `force`d. */
  private async handOver(force: boolean): Promise<void> {
    if (!this.locks || !this.held || this.closed) return;
    if (!force && !(await this.othersWaiting())) return;
    this.files.close(this.database);
    this.release();
  }

  /** While this worker holds the lock, every pending request for it is another tab's. */
  private async othersWaiting(): Promise<boolean> {
    const { pending = [] } = await (this.locks as LockManager).query();
    return pending.some((lock) => lock.name === this.lockName);
  }

  private release(): void {
    const release = this.held;
    this.held = undefined;
    release?.();
  }
}
