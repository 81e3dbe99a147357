import { PlatformClient } from '../../client/platform-client.js';
import { platformCalls } from '../../client/remote-calls.js';
import { solutionFromFiles } from '../../definition/solution-from-files.js';
import type { SqlDatabase } from '../../local/database.js';
import { runQuery } from '../../local/queries.js';
import { COMMAND_QUEUE_TABLE } from '../../local/stage.js';
import { LocalStore } from '../../local/store.js';
import type { CallContext } from '../../runtime/context.js';
import type { PushResult } from '../../runtime/push.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
import type { ClientOptions, ClientStatus } from '../protocol.js';
import { publishedVersion } from './published.js';
import { tablesRead } from './tables-read.js';
import { WrittenTables } from './written-tables.js';

/** The database as the session holds it: every use inside `run`, which holds the app's lease on it. */
export interface Lease {
  readonly persistent: boolean;
  run<T>(work: (db: SqlDatabase) => Promise<T> | T): Promise<T>;
  close(): Promise<void>;
}

/** What the session tells the page: tables changed, the status changed. */
export interface SessionEvents {
  change(tables: readonly string[]): void;
  status(status: ClientStatus): void;
}

/**
 * One client's runtime in its worker: the library's own Runtime (scope rules, staging, temp ids,
 * queue) over the worker's SQLite, with each function's call step sent to the platform. Every
 * operation holds the database's lease for its whole duration (syncs and pushes included), so
 * another tab's client waits rather than interleaving its writes with this one's.
 */
export class Session {
  private online = true;

  private constructor(
    private readonly lease: Lease,
    private readonly store: LocalStore,
    private readonly runtime: Runtime,
    private readonly version: { version: number; fromCache: boolean },
    private readonly events: SessionEvents,
    private readonly written: WrittenTables,
  ) {}

  static async open(options: ClientOptions, lease: Lease, events: SessionEvents): Promise<Session> {
    const client = new PlatformClient(options.server, options.token);
    return lease.run(async (db) => {
      const name = options.database ?? options.solution;
      const written = new WrittenTables(db);
      const store = new LocalStore(`${name}.db`, { database: written.database });
      const published = await publishedVersion(client, options.solution, () => db);
      const solution = solutionFromFiles(
        options.solution,
        published.files,
        `${options.solution}@${published.version}`,
      );
      const runtime = createRuntime(solution, { store, remote: platformCalls(client, options.solution) });
      const session = new Session(lease, store, runtime, published, events, written);
      session.online = !published.fromCache;
      return session;
    });
  }

  status(): Promise<ClientStatus> {
    return this.lease.run(() => this.currentStatus());
  }

  /** Syncs the datasource (the queue pushed first, as on Node); its tables written in one transaction. */
  sync(datasource: string, context: CallContext = {}): Promise<unknown> {
    return this.write(
      async () => {
        const result = await this.runtime.sync(datasource, { context });
        return {
          datasource,
          entities: result.entities.map((e) => ({ entity: e.entity, records: e.records })),
        };
      },
      () => true,
    );
  }

  query(sql: string, parameters: Record<string, unknown> = {}): Promise<unknown> {
    return this.lease.run(() => this.read(sql, parameters));
  }

  /** The datasource's own query over the local tables, as a screen shows it. */
  rows(datasource: string, context: CallContext = {}): Promise<unknown> {
    return this.lease.run(async () => (await this.runtime.readDatasource(datasource, { context })).value);
  }

  action(name: string, context: CallContext = {}): Promise<unknown> {
    return this.write(
      () => this.runtime.action(name, context),
      (result) => pushReached(result.push),
    );
  }

  queuedCommands(): Promise<unknown> {
    return this.lease.run(() => this.runtime.queuedCommands());
  }

  /**
   * Someone asked (`client.pushQueue()`, a "sync now" button): every command that may go is sent,
   * also those waiting for their next attempt, as `restfn queue push` does.
   */
  pushQueue(): Promise<PushResult | undefined> {
    return this.write(
      async () => (this.hasQueue() ? this.runtime.pushQueue({ ignoreSchedule: true }) : undefined),
      pushReached,
    );
  }

  /**
   * The page's `online` / `offline` events. Offline: the status says so. Online: the commands that
   * waited because the platform could not be reached are due now (what they waited for is back),
   * and the queue is pushed as an automatic push is, so commands waiting after a 429 or a 5xx keep
   * their time (the Node queue's rules, src/errors/command-retry.ts).
   */
  async network(online: boolean): Promise<PushResult | undefined> {
    if (!online) {
      this.online = false;
      this.events.status(await this.status());
      return undefined;
    }
    return this.write(async () => {
      if (!this.hasQueue()) return undefined;
      const offline = this.runtime
        .queuedCommands()
        .filter((c) => c.state === 'waiting' && c.error?.code === 'NETWORK_ERROR')
        .map((c) => c.id);
      if (offline.length > 0) this.runtime.changeQueue('action.retry-queue-command', offline);
      return this.runtime.pushQueue();
    }, pushReached);
  }

  /**
   * A live query's start: its rows, and the tables SQLite reads for it. The query runs first, as
   * `query` runs it: tables it names are created empty before the first sync, and bad or writing
   * SQL is refused with its code before the plan is read.
   */
  watch(sql: string, parameters: Record<string, unknown> = {}): Promise<{ rows: unknown; tables: string[] }> {
    return this.lease.run((db) => {
      const rows = this.read(sql, parameters);
      return { rows, tables: tablesRead(db, sql) };
    });
  }

  async close(): Promise<void> {
    await this.runtime.close();
    await this.lease.close();
  }

  /**
   * A write operation: the tables it wrote reported changed after it (also when it failed half-way:
   * what it committed before is there), then the status. `reached` says from its result whether the
   * platform answered (undefined: nothing was sent, the online flag stays as it was).
   */
  private async write<T>(work: () => Promise<T>, reached: (result: T) => boolean | undefined): Promise<T> {
    let tables: string[] = [];
    try {
      return await this.lease.run(async () => {
        this.written.start();
        try {
          const result = await work();
          this.online = reached(result) ?? this.online;
          return result;
        } catch (error) {
          if (unreachable(error)) this.online = false;
          throw error;
        } finally {
          tables = this.written.take();
        }
      });
    } finally {
      if (tables.length > 0) this.events.change(tables);
      this.events.status(await this.lease.run(() => this.currentStatus()));
    }
  }

  private read(sql: string, parameters: Record<string, unknown>): unknown {
    const store = {
      db: this.store.db,
      file: this.store.file,
      readOnly: true,
      ensureTable: (n: string) => this.store.ensureTable(n),
    };
    return runQuery(store, sql, parameters);
  }

  private hasQueue(): boolean {
    return this.store.hasTable(COMMAND_QUEUE_TABLE);
  }

  private currentStatus(): ClientStatus {
    const queued = this.hasQueue() ? this.runtime.queuedCommands().length : 0;
    return {
      online: this.online,
      version: this.version.version,
      fromCache: this.version.fromCache,
      persistent: this.lease.persistent,
      queued,
    };
  }
}

/** Whether a push reached the platform: false when it stopped offline, undefined when it sent nothing. */
function pushReached(push: PushResult | undefined): boolean | undefined {
  if (!push) return undefined;
  if (push.stopped === 'offline') return false;
  return push.outcomes.length > 0 ? true : undefined;
}

function unreachable(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'SERVER_UNREACHABLE' || code === 'NETWORK_ERROR';
}
