import { PlatformClient } from '../../client/platform-client.js';
import { platformCalls } from '../../client/remote-calls.js';
import { solutionFromFiles } from '../../definition/solution-from-files.js';
import type { SqlDatabase } from '../../local/database.js';
import { runQuery } from '../../local/queries.js';
import { COMMAND_QUEUE_TABLE } from '../../local/stage.js';
import { LocalStore } from '../../local/store.js';
import type { CallContext } from '../../runtime/context.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
import { ALL_TABLES, type ClientOptions, type ClientStatus } from '../protocol.js';
import { publishedVersion } from './published.js';
import { tablesRead } from './tables-read.js';
import { preloadXmlFor } from './xml-preload.js';

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
  ) {}

  static async open(options: ClientOptions, lease: Lease, events: SessionEvents): Promise<Session> {
    const client = new PlatformClient(options.server, options.token);
    return lease.run(async (db) => {
      const name = options.database ?? options.solution;
      const store = new LocalStore(`${name}.db`, { database: db });
      const published = await publishedVersion(client, options.solution, () => db);
      const solution = solutionFromFiles(
        options.solution,
        published.files,
        `${options.solution}@${published.version}`,
      );
      await preloadXmlFor(solution);
      const runtime = createRuntime(solution, { store, remote: platformCalls(client, options.solution) });
      const session = new Session(lease, store, runtime, published, events);
      session.online = !published.fromCache;
      return session;
    });
  }

  status(): Promise<ClientStatus> {
    return this.lease.run(() => this.currentStatus());
  }

  /** Syncs the datasource (the queue pushed first, as on Node); its tables written in one transaction. */
  sync(datasource: string, context: CallContext = {}): Promise<unknown> {
    return this.write([ALL_TABLES], async () => {
      const result = await this.runtime.sync(datasource, { context });
      return { datasource, entities: result.entities.map((e) => ({ entity: e.entity, records: e.records })) };
    });
  }

  query(sql: string, parameters: Record<string, unknown> = {}): Promise<unknown> {
    return this.lease.run(() =>
      runQuery(
        {
          db: this.store.db,
          file: this.store.file,
          readOnly: true,
          ensureTable: (n) => this.store.ensureTable(n),
        },
        sql,
        parameters,
      ),
    );
  }

  /** The datasource's own query over the local tables, as a screen shows it. */
  rows(datasource: string, context: CallContext = {}): Promise<unknown> {
    return this.lease.run(async () => (await this.runtime.readDatasource(datasource, { context })).value);
  }

  action(name: string, context: CallContext = {}): Promise<unknown> {
    return this.write([ALL_TABLES], () => this.runtime.action(name, context));
  }

  queuedCommands(): Promise<unknown> {
    return this.lease.run(() => this.runtime.queuedCommands());
  }

  pushQueue(): Promise<unknown> {
    return this.write([ALL_TABLES], () => this.runtime.pushQueue());
  }

  tablesRead(sql: string): Promise<string[]> {
    return this.lease.run((db) => tablesRead(db, sql));
  }

  async close(): Promise<void> {
    await this.runtime.close();
    await this.lease.close();
  }

  /** A write operation: its tables reported changed after it (even when it failed half-way). */
  private async write<T>(tables: readonly string[], work: () => Promise<T>): Promise<T> {
    try {
      return await this.lease.run(async () => {
        try {
          const result = await work();
          this.reachable(true);
          return result;
        } catch (error) {
          if (unreachable(error)) this.reachable(false);
          throw error;
        }
      });
    } finally {
      this.events.change(tables);
      this.events.status(await this.lease.run(() => this.currentStatus()));
    }
  }

  private reachable(online: boolean): void {
    this.online = online;
  }

  private currentStatus(): ClientStatus {
    const queued = this.store.hasTable(COMMAND_QUEUE_TABLE) ? this.runtime.queuedCommands().length : 0;
    return {
      online: this.online,
      version: this.version.version,
      fromCache: this.version.fromCache,
      persistent: this.lease.persistent,
      queued,
    };
  }
}

function unreachable(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'SERVER_UNREACHABLE' || code === 'NETWORK_ERROR';
}
