import type { CredentialProvider } from '../auth/credential-provider.js';
import { localCredentials } from '../auth/local-credentials.js';
import type { QueueAction } from '../definition/schema/index.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import { didYouMean } from '../definition/suggest.js';
import { AlertCenter } from '../errors/alerts.js';
import { DefinitionError } from '../errors/definition-error.js';
import { UsageError } from '../errors/restfn-error.js';
import { ScriptError } from '../expression/scripts/errors.js';
import { type ScriptLog, ScriptSandbox } from '../expression/scripts/sandbox.js';
import { type AbortLike, toSignal } from '../http/abort.js';
import type { AddressGuard } from '../http/address-guard.js';
import { requestBudget } from '../http/request-budget.js';
import { Transport } from '../http/transport.js';
import { type Command, type CommandPayload, CommandQueue } from '../local/command-queue.js';
import type { FileStore } from '../local/files.js';
import type { ReadOnlyStore } from '../local/read-only-store.js';
import { COMMAND_QUEUE_TABLE } from '../local/stage.js';
import type { LocalStore } from '../local/store.js';
import {
  type ActionOptions,
  type ActionResult,
  type DefinitionState,
  definitionState,
  previewStep,
  queueCommands,
  rebuiltPayload,
  runAction,
  walkSteps,
} from './action.js';
import type { SecretCollector } from './call.js';
import { callStep } from './call-step.js';
import type { CallContext } from './context.js';
import { runWithDependencies } from './datasource-dependencies.js';
import { readDatasource } from './datasource-reader.js';
import { Deadline } from './deadline.js';
import type { Engine, ExecutionResult, RemoteCalls, RemoteResponse } from './engine.js';
import { EventBus, type EventListener } from './events.js';
import { type NormalizedOptions, normalizeOptions, type RuntimeOptions } from './options.js';
import { continues, type Paged, paginate } from './paginate.js';
import { refuseUnknownParameters } from './parameters.js';
import { runFunction } from './pipeline.js';
import type { ActionPreview, DatasourcePreview } from './previews.js';
import { type PushOptions, type PushResult, pushQueue, type QueueEngine } from './push.js';
import { type DatasourceResult, runDatasource, type SyncOptions } from './sync.js';

export type { ActionPreview, DatasourcePreview } from './previews.js';

export interface CreateRuntimeOptions extends RuntimeOptions {
  /**
   * Turns credential keys into values. @default the solution's local credential store, what
   * `restfn credentials set` writes (opened only when a function names a credential)
   */
  readonly credentials?: CredentialProvider;
  /** The local database: needed by queries, guards' operations, error tables and syncs. */
  readonly store?: LocalStore;
  /** The device file store for `local-uri` conversions. */
  readonly files?: FileStore;
  /** Checks every address a call connects to (the platform's SSRF guard); default: none. */
  readonly addressGuard?: AddressGuard;
  /** Where the call step runs (a device against the platform); default: here. */
  readonly remote?: RemoteCalls;
  /**
   * Told each line the solution's expression scripts write with `console.*` (the platform's log at
   * debug level), besides the `console` event (the trace); default: only the event.
   */
  readonly onScriptLog?: (log: ScriptLog) => void;
}

/** Runs the functions of one solution, sharing one connection pool and one expression cache. */
export class Runtime {
  readonly solution: Solution;
  readonly options: NormalizedOptions;
  private readonly engine: Engine;
  private readonly events = new EventBus();
  /** The solution's expression scripts, loaded on first use. */
  private readonly scripts: ScriptSandbox | undefined;
  private readonly functions: Record<string, unknown> = {};
  /** Binding the scripts happens once; a module that does not load fails every execution alike. */
  private readying: Promise<void> | undefined;
  /** `ready()` has resolved: an execution need not wait for it (one promise less per call). */
  private isReady = false;
  private queue: CommandQueue | undefined;

  constructor(solution: Solution, options: CreateRuntimeOptions = {}) {
    this.solution = solution;
    this.options = normalizeOptions(solution, options);
    this.scripts =
      solution.scripts.length > 0
        ? new ScriptSandbox(solution.scripts, this.options.scripts, (log) => {
            options.onScriptLog?.(log);
            if (this.events.active)
              this.events.emit({
                type: 'console',
                function: log.source,
                level: log.level,
                message: log.message,
              });
          })
        : undefined;
    this.engine = {
      solution,
      options: this.options,
      transport: new Transport(this.options.http, options.addressGuard),
      credentials: options.credentials ?? localCredentials(solution.root),
      events: this.events,
      store: options.store,
      files: options.files,
      alerts: new AlertCenter(this.options.clock),
      expressions: { limits: this.options.expressions, functions: this.functions },
      remote: options.remote,
    };
  }

  /**
   * Executes the function `name` with the caller's parameter values. Resolves with the output, or with
   * `status: 'skipped'` when its `when` is false; rejects with a `RestfnError` carrying a stable code.
   */
  async execute(
    name: string,
    parameters: Readonly<Record<string, unknown>> = {},
    context: CallContext = {},
    options: {
      signal?: AbortLike;
      /** The caller's id for this execution (its events carry it), instead of a fresh one. */
      correlationId?: string;
      /** Told every credential text the execution's calls use. */
      collect?: SecretCollector;
      /**
       * Told when the answer says more pages follow (its `continuation.when` holds): this gives page
       * 1 only, and no further page is requested to find out. A `when` that fails to evaluate tells nothing.
       */
      onMorePages?: () => void;
    } = {},
  ): Promise<ExecutionResult> {
    this.refuseUnknown(name, parameters);
    if (!this.isReady) await this.ready();
    const deadline = this.executionDeadline(name, options.signal);
    const { correlationId, collect, onMorePages } = options;
    return deadline.run(async (signal) => {
      const execution = await runFunction(this.engine, name, parameters, context, {
        signal,
        correlationId,
        collect,
      });
      if (onMorePages && (await continues(this.engine, execution).catch(() => false))) onMorePages();
      return execution.result;
    });
  }

  /**
   * Executes the function `name` and follows its `continuation`, handing each page's result to
   * `onPage` before the next is fetched (at most two pages are held), within the sync deadline.
   * What the platform streams for `"pages": true`; a device's sync writes pages to tables instead.
   */
  async pages(
    name: string,
    parameters: Readonly<Record<string, unknown>>,
    context: CallContext,
    onPage: (result: ExecutionResult, page: number) => void | Promise<void>,
    options: { signal?: AbortLike; collect?: SecretCollector } = {},
  ): Promise<Paged> {
    this.refuseUnknown(name, parameters);
    await this.ready();
    const deadline = new Deadline('sync', this.options.syncTimeoutMs, `function '${name}'`, options.signal);
    return deadline.run((signal) =>
      paginate(this.engine, name, parameters, context, (execution, page) => onPage(execution.result, page), {
        signal: toSignal(signal),
        ...(options.collect ? { collect: options.collect } : {}),
      }),
    );
  }

  /**
   * The call step of `name` alone, with a device's parameter values (the platform's side of
   * `RemoteCalls`): the masked response, or the call's coded error.
   */
  async callStep(
    name: string,
    values: Readonly<Record<string, unknown>>,
    options: {
      continuation?: { url: string | undefined };
      /** A queued command's `entity` and `commandId` (its idempotency key). */
      context?: { entity?: string; commandId?: string };
      /** The caller's id for the call (a device's), so both sides name it alike. */
      correlationId?: string;
      /** `@ctx.user` of the call. */
      user?: Record<string, unknown>;
      signal?: AbortLike;
      /** Told every credential text the call uses. */
      collect?: SecretCollector;
    } = {},
  ): Promise<RemoteResponse & { readonly correlationId: string }> {
    if (!this.isReady) await this.ready();
    const deadline = this.executionDeadline(name, options.signal);
    return deadline.run((signal) => callStep(this.engine, name, values, { ...options, signal }));
  }

  /** A value for a parameter `name` does not declare would be dropped unseen: a typo is an error. */
  private refuseUnknown(name: string, parameters: Readonly<Record<string, unknown>>): void {
    const definition = this.solution.functions.get(name)?.definition;
    if (definition) refuseUnknownParameters(name, Object.keys(parameters), definition.parameters);
  }

  /** The deadline of one execution or call step of `name`, following the caller's signal. */
  private executionDeadline(name: string, signal: AbortLike | undefined): Deadline {
    return new Deadline('execution', this.options.executionTimeoutMs, `function '${name}'`, signal);
  }

  /**
   * Loads the solution's expression scripts (once) and binds their functions for every expression.
   * A module that does not load is an invalid definition (`restfn validate` reports where).
   */
  ready(): Promise<void> {
    this.readying ??= this.bindScripts().then(() => {
      this.isReady = true;
    });
    return this.readying;
  }

  private async bindScripts(): Promise<void> {
    if (!this.scripts) return;
    const { problems } = await this.scripts.load();
    if (problems.length > 0) {
      const [first] = problems;
      throw new ScriptError('SCRIPT_LOAD', `${first!.file}:${first!.line}:${first!.col}: ${first!.message}`);
    }
    Object.assign(this.functions, await this.scripts.bindings());
  }

  /**
   * Runs the datasource `name`: syncs each entity table from its function (every continuation page,
   * the scope rules, operations) and runs its query. Needs the runtime's `store`.
   */
  async sync(
    name: string,
    options: SyncOptions & {
      context?: CallContext;
      /** Push the command queue first (rows still queued afterwards keep their local state). @default true */
      pushFirst?: boolean;
    } = {},
  ): Promise<DatasourceResult> {
    const store = this.engine.store;
    if (!store) throw new UsageError('sync needs a local store: createRuntime(solution, { store })');
    await this.ready();
    const datasource = this.datasourceFile(name);
    // Local changes go out before the pull, so the pull brings them back as the service applied them.
    if (options.pushFirst !== false && hasQueue(store)) await this.pushQueue({ signal: options.signal });
    const deadline = new Deadline('sync', this.options.syncTimeoutMs, `datasource '${name}'`, options.signal);
    const engine = { ...this.engine, store };
    // The datasources it reads run first (within the same deadline), unless the caller has them.
    return deadline.run((signal) =>
      runWithDependencies(
        this.solution,
        store,
        datasource.name,
        options.context ?? {},
        (n) => this.datasourceFile(n),
        (file, call) => runDatasource(engine, file, call, { ...options, signal: toSignal(signal) }),
      ),
    );
  }

  /**
   * The datasource `name` as a screen shows it now, syncing nothing: a local one is its query over
   * `store` (default: the runtime's; `restfn query` gives a read-only one) as the tables are, a REST
   * one calls its functions into a throwaway database, a static one is its data; the datasources it
   * reads are read first. `value` is what `@ctx.datasources.<name>` reads. `context` carries what its
   * expressions read besides (`inputs`, `jig.inputs`). Within the sync deadline.
   */
  async readDatasource(
    name: string,
    options: { context?: CallContext; store?: LocalStore | ReadOnlyStore; signal?: AbortLike } = {},
  ): Promise<DatasourceResult & { readonly value: unknown }> {
    const store = options.store ?? this.engine.store;
    if (!store) throw new UsageError('reading a datasource needs a local store: give one');
    await this.ready();
    const datasource = this.datasourceFile(name);
    const deadline = new Deadline('sync', this.options.syncTimeoutMs, `datasource '${name}'`, options.signal);
    return deadline.run((signal) =>
      readDatasource({ ...this.engine, store }, datasource.name, options.context ?? {}, toSignal(signal)),
    );
  }

  /**
   * What a sync of the datasource `name` would write, without writing anything anywhere: its
   * functions run (at most `maxPages` pages each; more is reported as `page-cap`) into a throwaway
   * in-memory database, and each table's rows come back (the first `maxRows`), with the
   * datasource's query rows. The database is confined: the definitions' SQL may read and change
   * tables, never the connection (no ATTACH, PRAGMA, VACUUM). It runs within the execution timeout,
   * not a sync's. What the platform's console previews, in a sandbox process.
   */
  async previewDatasource(
    name: string,
    options: {
      context?: CallContext;
      signal?: AbortLike;
      maxPages?: number;
      maxRows?: number;
      collect?: SecretCollector;
    } = {},
  ): Promise<DatasourcePreview> {
    await this.ready();
    const file = this.datasourceFile(name);
    const { LocalStore } = await import('../local/store.js');
    const store = new LocalStore(':memory:', { confined: true });
    const maxRows = options.maxRows ?? 100;
    try {
      const engine = {
        ...this.engine,
        store,
        options: {
          ...this.engine.options,
          maxPages: Math.min(options.maxPages ?? 5, this.engine.options.maxPages),
        },
      };
      const deadline = new Deadline(
        'execution',
        this.options.executionTimeoutMs,
        `datasource '${name}'`,
        options.signal,
      );
      // A preview is one execution: one request budget for all its functions and pages (and those
      // of the datasources it reads, which run first into the same throwaway database).
      const budget = requestBudget(this.engine.options.maxRequestsPerExecution);
      const result = await deadline.run((signal) =>
        runWithDependencies(
          this.solution,
          store,
          file.name,
          options.context ?? {},
          (n) => this.datasourceFile(n),
          (dependency, call) =>
            runDatasource(engine, dependency, call, {
              signal: toSignal(signal),
              allowPartial: true,
              ...(options.collect ? { collect: options.collect } : {}),
              budget,
            }),
        ),
      );
      const tables: Record<string, { rows: unknown[]; total: number }> = {};
      for (const table of store.entityTables()) {
        const quoted = store.ensureTable(table);
        const total = (store.db.prepare(`SELECT count(*) AS n FROM ${quoted}`).get() as { n: number }).n;
        tables[table] = { rows: store.rows(table).slice(0, maxRows), total };
      }
      return {
        datasource: name,
        entities: result.entities.map(({ error, ...e }) =>
          error === undefined
            ? e
            : {
                ...e,
                error: {
                  code: (error as { code?: string }).code ?? 'ENGINE_ERROR',
                  message: String((error as Error).message),
                },
              },
        ),
        tables,
        rows: result.rows?.slice(0, maxRows),
      };
    } finally {
      store.close();
    }
  }

  /**
   * What the action `name` would do, doing nothing: it runs against a throwaway in-memory database
   * holding only the screen's item (`context.current.item`, when it has an id), with no push. The
   * answer is the local row before and after, and the commands it would queue (their functions and
   * parameters) and every step in the order it ran. No change is sent and nothing is stored; a
   * `sync-entities` step reads its service into the throwaway database, as a datasource preview
   * does. What the platform's console previews.
   */
  async previewAction(name: string, context: CallContext = {}): Promise<ActionPreview> {
    await this.ready();
    const { LocalStore } = await import('../local/store.js');
    const store = new LocalStore(':memory:', { confined: true });
    try {
      const queue = new CommandQueue(store.db, () => new Date(this.options.clock.now()).toISOString());
      const engine = { ...this.engine, store, queue };
      const file = this.solution.files.find((f) => f.kind === 'action' && f.name === name) as
        | SourceFile<'action'>
        | undefined;
      const definition = file?.definition?.action;
      const entity =
        definition?.type === 'action.execute-entity' || definition?.type === 'action.submit-form'
          ? definition.options.entity
          : undefined;
      const item = (context.current as { item?: Record<string, unknown> } | undefined)?.item;
      const before =
        entity !== undefined && item && (typeof item.id === 'string' || typeof item.id === 'number')
          ? { ...item, id: item.id }
          : undefined;
      if (before && entity !== undefined) {
        const table = store.ensureTable(entity);
        store.db
          .prepare(`INSERT INTO ${table} (id, data) VALUES (?, ?)`)
          .run(String(before.id), JSON.stringify(before));
      }
      const result = await runAction(engine, name, context, { push: false });
      return {
        action: name,
        ...(result.method ? { method: result.method } : {}),
        ...(result.entity ? { entity: result.entity } : {}),
        before: before ?? null,
        after: result.row ?? null,
        commands: queue.list().map((c) => ({
          type: c.type,
          entity: c.entity,
          record: c.record,
          function: c.function,
          parameters: c.payload.parameters ?? {},
        })),
        steps: walkSteps(result).map(({ step }) => previewStep(step)),
      };
    } finally {
      store.close();
    }
  }

  /**
   * Runs the action file `name` (spec 4.4): the local change and its queued command in one
   * transaction, then a push of the queue (unless `push: false`), then its `onSuccess`. `context` is
   * what a screen gives: `current.item`, `components.<id>.state.value`, `jig.inputs`, `user`.
   */
  async action(name: string, context: CallContext = {}, options: ActionOptions = {}): Promise<ActionResult> {
    const engine = this.queueEngine('action');
    await this.ready();
    return runAction(engine, name, context, options);
  }

  private datasourceFile(name: string): SourceFile<'datasource'> {
    const file = this.solution.files.find((f) => f.kind === 'datasource' && f.name === name);
    if (!file) {
      const names = this.solution.files.filter((f) => f.kind === 'datasource').map((f) => f.name);
      throw new UsageError(
        `datasource '${name}' does not exist${didYouMean(name, names)}`,
        'DATASOURCE_NOT_FOUND',
      );
    }
    if (!file.definition) {
      throw new DefinitionError(
        `datasource '${name}' is invalid (${file.yaml.file}); run 'restfn validate' for details`,
      );
    }
    return file as SourceFile<'datasource'>;
  }

  /** Sends the queued commands (see `pushQueue`). */
  async pushQueue(options: PushOptions = {}): Promise<PushResult> {
    const engine = this.queueEngine('pushQueue');
    await this.ready();
    return pushQueue(engine, options);
  }

  /** The commands in the queue, first to go first. */
  queuedCommands(): Command[] {
    return this.queueEngine('queuedCommands').queue.list();
  }

  /** Whether each command was built from the files as they are now (command-source.ts). */
  commandDefinition(command: Command): DefinitionState {
    return definitionState(this.engine.solution, command);
  }

  /**
   * `restfn queue retry --rebuild`: each command built again from the current files (same id, record
   * and place in the queue), then queued again. All are rebuilt before any is changed.
   */
  async rebuildCommands(ids: readonly string[]): Promise<string[]> {
    const engine = this.queueEngine('rebuildCommands');
    await this.ready();
    const rebuilt: Array<[string, CommandPayload]> = [];
    for (const id of ids) {
      const command = engine.queue.get(id);
      if (!command) {
        throw new UsageError(
          `no command '${id}' in the queue ('restfn queue' lists them)`,
          'COMMAND_NOT_FOUND',
        );
      }
      rebuilt.push([id, await rebuiltPayload(engine, command)]);
    }
    engine.store.db.transaction(() => {
      for (const [id, payload] of rebuilt) engine.queue.replacePayload(id, payload);
      queueCommands(engine, 'action.retry-queue-command', ids);
    })();
    return [...ids];
  }

  /** The queue actions by command id: retry, delete, or clear (the command and its record's later ones). */
  changeQueue(type: QueueAction['type'], ids: readonly string[]): string[] {
    return queueCommands(this.queueEngine('changeQueue'), type, ids);
  }

  private queueEngine(what: string): QueueEngine {
    const store = this.engine.store;
    if (!store) throw new UsageError(`${what} needs a local store: createRuntime(solution, { store })`);
    this.queue ??= new CommandQueue(store.db, () => new Date(this.options.clock.now()).toISOString());
    return { ...this.engine, store, queue: this.queue };
  }

  /** Subscribes to execution events; returns the unsubscribe function. */
  on(listener: EventListener): () => void {
    return this.events.on(listener);
  }

  /** Closes pooled connections and the script sandbox. */
  close(): Promise<void> {
    this.scripts?.close();
    return this.engine.transport.close();
  }
}

export function createRuntime(solution: Solution, options: CreateRuntimeOptions = {}): Runtime {
  return new Runtime(solution, options);
}

function hasQueue(store: LocalStore): boolean {
  return store.hasTable(COMMAND_QUEUE_TABLE);
}
