import { ALL_TABLES, type ClientOptions, type ClientStatus, type WorkerEvent } from '../protocol.js';
import { closed, openPopup, redirectFrom } from './popup.js';
import { RestfnClientError, WorkerChannel } from './rpc.js';

export type ChangeListener = (change: { tables: readonly string[] }) => void;
export type StatusListener = (status: ClientStatus) => void;

interface Watch {
  readonly sql: string;
  readonly params: Record<string, unknown>;
  readonly callback: (rows: unknown) => void;
  readonly onError: ((error: Error) => void) | undefined;
  tables: readonly string[];
  closed: boolean;
}

/**
 * restfn's device half in a page: the same vocabulary as the Node library (sync a datasource, query
 * the local tables, run an action, read and push the queue), over a worker that holds SQLite in the
 * Origin Private File System. Actions apply locally at once and queue their remote call; the queue
 * is pushed when the browser comes back online and on `pushQueue()`.
 */
export class RestfnClient {
  private readonly changeListeners = new Set<ChangeListener>();
  private readonly statusListeners = new Set<StatusListener>();
  private readonly watches = new Set<Watch>();
  // The browser's network events reach the worker: online, the queue is pushed (commands that
  // waited for the network go at once); offline, the status says so before a request fails.
  private readonly onOnline = () => {
    void this.channel.call('network', true).catch(() => {});
  };
  private readonly onOffline = () => {
    void this.channel.call('network', false).catch(() => {});
  };
  /** The last status the worker reported. */
  status: ClientStatus;

  private constructor(
    private readonly channel: WorkerChannel,
    status: ClientStatus,
    private readonly options: ClientOptions,
  ) {
    this.status = status;
    globalThis.addEventListener?.('online', this.onOnline);
    globalThis.addEventListener?.('offline', this.onOffline);
  }

  /** @internal createClient's: the worker started and the published version loaded. */
  static async start(options: ClientOptions, worker: Worker): Promise<RestfnClient> {
    let client: RestfnClient | undefined;
    const early: WorkerEvent[] = [];
    const channel = new WorkerChannel(worker, (event) =>
      client ? client.dispatch(event) : early.push(event),
    );
    try {
      const status = await channel.call<ClientStatus>('open', { ...options });
      client = new RestfnClient(channel, status, options);
      for (const event of early) client.dispatch(event);
      return client;
    } catch (error) {
      channel.terminate();
      throw error;
    }
  }

  /** Syncs the datasource through the platform into the local tables (one transaction). */
  sync(datasource: string, context: object = {}): Promise<unknown> {
    return this.channel.call('sync', datasource, context);
  }

  /** Runs SQL over the local tables (reads only); `params` binds `@name`s. */
  query<T = Record<string, unknown>>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
    return this.channel.call('query', sql, params);
  }

  /** The datasource's own query over the local tables, as a screen shows it. */
  rows<T = Record<string, unknown>>(datasource: string, context: object = {}): Promise<T[]> {
    return this.channel.call('rows', datasource, context);
  }

  /** Runs an action: the local change at once, its remote call queued and pushed when online. */
  action(name: string, context: object = {}): Promise<unknown> {
    return this.channel.call('action', name, context);
  }

  queuedCommands(): Promise<unknown[]> {
    return this.channel.call('queuedCommands');
  }

  /**
   * Sends the queue now: every command that may go, also those waiting for their next attempt (as
   * `restfn queue push`). Commands that fail again wait or fail by the queue's rules; the result
   * counts them (`sent`, `waiting`, `failed`, `remaining`, `stopped: 'offline'`).
   */
  pushQueue(): Promise<unknown> {
    return this.channel.call('pushQueue');
  }

  /**
   * Signs the user in to the OAuth credential `key` for the functions this browser calls itself
   * (`useLocalCall`): a popup to the provider (authorization code, PKCE S256), back to the app's
   * redirect page (`signInRedirect`, which calls `completeSignIn()`); the worker exchanges the code
   * and keeps the tokens in the client's database. Call it from a click (popup blockers). A function
   * that needs it fails with `LOGIN_REQUIRED` and `error.credential` set to the key.
   */
  async signIn(key: string, options: { redirectUri?: string } = {}): Promise<void> {
    const redirectUri = options.redirectUri ?? this.options.signInRedirect;
    if (!redirectUri) {
      throw new RestfnClientError({
        name: 'RestfnClientError',
        code: 'USAGE',
        message: `signIn('${key}') needs the app's redirect page: createClient({ signInRedirect: new URL('/signed-in.html', location.href).href, ... }) or signIn(key, { redirectUri })`,
      });
    }
    const popup = openPopup(`restfn-sign-in-${key}`);
    try {
      const start = await this.channel.call<{ url: string; state: string }>('signInStart', key, redirectUri);
      const back = redirectFrom(popup, start.state);
      popup.location.href = start.url;
      const { search } = await back;
      await this.channel.call('signInFinish', start.state, search);
    } finally {
      if (!popup.closed) popup.close();
    }
  }

  /** Forgets the tokens this device keeps for `key`; whether it had any. */
  signOut(key: string): Promise<boolean> {
    return this.channel.call('signOut', key);
  }

  /**
   * Connects this app user's account for the platform's per-user credential `key` (what
   * `CONNECTION_REQUIRED` asks for, `error.credential`): the platform's connect flow in a popup,
   * resolved when the user closes it; or, with `{ redirect: true }`, this page goes there and
   * the platform sends it back to `returnTo` after.
   */
  async connect(key: string, options: { redirect?: boolean; returnTo?: string } = {}): Promise<void> {
    if (options.redirect) {
      globalThis.location.assign(await this.channel.call<string>('connectUrl', key, options.returnTo));
      return;
    }
    const popup = openPopup(`restfn-connect-${key}`);
    try {
      popup.location.href = await this.channel.call<string>('connectUrl', key, options.returnTo);
    } catch (error) {
      popup.close();
      throw error;
    }
    await closed(popup);
  }

  /**
   * A live query: `callback` gets the rows now and again whenever a table the query reads changes
   * (a sync, an action, a push, in this tab or another tab of the app), and only then: the tables are
   * SQLite's own reading of the query. A query that fails (bad SQL) calls `onError` with a
   * RestfnClientError. Returns the function that stops it.
   */
  watch<T = Record<string, unknown>>(
    sql: string,
    params: Record<string, unknown>,
    callback: (rows: T[]) => void,
    onError?: (error: Error) => void,
  ): () => void {
    const watch: Watch = {
      sql,
      params,
      callback: callback as (rows: unknown) => void,
      onError,
      tables: [],
      closed: false,
    };
    this.watches.add(watch);
    void this.channel.call<{ rows: unknown; tables: string[] }>('watch', sql, params).then(
      ({ rows, tables }) => {
        watch.tables = tables;
        if (!watch.closed) watch.callback(rows);
      },
      (error: Error) => {
        if (!watch.closed) watch.onError?.(error);
      },
    );
    return () => {
      watch.closed = true;
      this.watches.delete(watch);
    };
  }

  on(event: 'change', listener: ChangeListener): () => void;
  on(event: 'status', listener: StatusListener): () => void;
  on(event: 'change' | 'status', listener: ChangeListener | StatusListener): () => void {
    const set = (event === 'change' ? this.changeListeners : this.statusListeners) as Set<typeof listener>;
    set.add(listener);
    return () => set.delete(listener);
  }

  async close(): Promise<void> {
    globalThis.removeEventListener?.('online', this.onOnline);
    globalThis.removeEventListener?.('offline', this.onOffline);
    this.watches.clear();
    try {
      await this.channel.call('close');
    } finally {
      this.channel.terminate();
    }
  }

  private dispatch(event: WorkerEvent): void {
    if (event.event === 'status') {
      this.status = event.status;
      for (const listener of this.statusListeners) listener(event.status);
      return;
    }
    for (const listener of this.changeListeners) listener({ tables: event.tables });
    const all = event.tables.includes(ALL_TABLES);
    for (const watch of this.watches)
      if (all || watch.tables.some((t) => event.tables.includes(t))) void this.rerun(watch);
  }

  private async rerun(watch: Watch): Promise<void> {
    let rows: unknown;
    try {
      rows = await this.query(watch.sql, watch.params);
    } catch (error) {
      if (!watch.closed) watch.onError?.(error as Error);
      return;
    }
    if (!watch.closed) watch.callback(rows);
  }
}
