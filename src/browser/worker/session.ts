import type { CredentialProvider } from '../../auth/credential-provider.js';
import { PlatformClient } from '../../client/platform-client.js';
import { platformCalls } from '../../client/remote-calls.js';
import { solutionFromFiles } from '../../definition/solution-from-files.js';
import { SYSTEM_CLOCK } from '../../errors/clock.js';
import { loadJsonata } from '../../expression/jsonata.js';
import type { SqlDatabase } from '../../local/database.js';
import { QueryNotReadOnlyError } from '../../local/errors.js';
import { runQuery } from '../../local/queries.js';
import { COMMAND_QUEUE_TABLE } from '../../local/stage.js';
import { LocalStore } from '../../local/store.js';
import type { CallContext } from '../../runtime/context.js';
import type { PushResult } from '../../runtime/push.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
import type { ClientOptions, ClientStatus } from '../protocol.js';
import { CredentialTable } from './credential-table.js';
import { publishedVersion } from './published.js';
import { type SignInStart, SignIns } from './sign-in.js';
import { tablesRead } from './tables-read.js';
import { WrittenTables } from './written-tables.js';
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
    private readonly written: WrittenTables,
    private readonly platform: PlatformClient,
    private readonly solution: string,
    private readonly credentials: CredentialTable,
    private readonly signIns: SignIns,
  ) {}

  static async open(options: ClientOptions, lease: Lease, events: SessionEvents): Promise<Session> {
    const client = new PlatformClient(options.server, options.token);
    return lease.run(async (db) => {
      const name = options.database ?? options.solution;
      const written = new WrittenTables(db);
      const store = new LocalStore(`${name}.db`, { database: written.database });
      // JSONata is a chunk of its own, loaded while the platform answers: the client loads it when it
      // opens, not at the first expression, so that an action taken offline later needs no download.
      const jsonataLoading = loadJsonata();
      const published = await publishedVersion(client, options.solution, () => db);
      const solution = solutionFromFiles(
        options.solution,
        published.files,
        `${options.solution}@${published.version}`,
      );
      // useLocalCall functions call from here with the user's own tokens (credentials.ts); every
      // other function's call step goes to the platform.
      await preloadXmlFor(solution);
      const credentials = new CredentialTable(() => db);
      const runtime = createRuntime(solution, {
        store,
        remote: platformCalls(client, options.solution),
        credentials: lazyCredentials(credentials),
      });
      // The same for a solution's expression scripts (QuickJS): bound now, while online.
      await Promise.all([jsonataLoading, runtime.ready()]);
      const signIns = new SignIns(client, options.solution, credentials, SYSTEM_CLOCK);
      const session = new Session(
        lease,
        store,
        runtime,
        published,
        events,
        written,
        client,
        options.solution,
        credentials,
        signIns,
      );
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

  /** A sign-in's authorization address (the platform gives the credential's configuration). */
  signInStart(key: string, redirectUri: string): Promise<SignInStart> {
    return this.lease.run(() => this.signIns.start(key, redirectUri));
  }

  /** The redirect's query back from the popup: the code exchanged, the tokens kept. */
  signInFinish(state: string, search: string): Promise<{ key: string }> {
    return this.lease.run(() => this.signIns.finish(state, search));
  }

  /** Forgets a credential's tokens on this device; whether any were kept. */
  signOut(key: string): Promise<boolean> {
    return this.lease.run(() => this.credentials.signOut(key));
  }

  /**
   * Where this user connects a per-user credential of the platform (CONNECTION_REQUIRED): the
   * platform's connect flow, its address asked for as JSON (the token stays in the header).
   */
  async connectUrl(key: string, returnTo?: string): Promise<string> {
    const query = returnTo ? `?returnTo=${encodeURIComponent(returnTo)}` : '';
    const { url } = await this.platform.request<{ url: string }>(
      'GET',
      `/api/v1/solutions/${encodeURIComponent(this.solution)}/credentials/${encodeURIComponent(key)}/connect${query}`,
    );
    return url;
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
          if (unreachable(error, this.platform.url)) this.online = false;
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
    try {
      return runQuery(store, sql, parameters);
    } catch (error) {
      // The library's wording names the CLI; say what an app does instead.
      if (!(error instanceof QueryNotReadOnlyError)) throw error;
      throw new QueryNotReadOnlyError(
        `client.query and client.watch only read, and ${JSON.stringify(sql.trim().slice(0, 200))} would change the database; run SELECT (or WITH, VALUES), and change rows with client.action or client.sync`,
      );
    }
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

/**
 * The credential provider of the functions this browser calls itself, loaded (with the OAuth
 * client) when one first names a credential: most solutions have none, and their app never
 * downloads it (as Node's localCredentials).
 */
function lazyCredentials(table: CredentialTable): CredentialProvider {
  let provider: Promise<CredentialProvider> | undefined;
  return {
    async apply(request, signal) {
      provider ??= import('./credentials.js').then((m) => m.browserCredentials(table, SYSTEM_CLOCK));
      return (await provider).apply(request, signal);
    },
  };
}

/**
 * Whether the failure says the platform cannot be reached. A function this browser calls itself
 * (useLocalCall) fails with the same network error when its service is down: that says nothing of
 * the platform, so only a request to the platform's address counts.
 */
function unreachable(error: unknown, platform: string): boolean {
  const e = error as { code?: string; request?: { url?: string } };
  if (e.code === 'SERVER_UNREACHABLE') return true;
  if (e.code !== 'NETWORK_ERROR') return false;
  const url = e.request?.url;
  return url === undefined || url.startsWith(`${platform}/`);
}
