import type { SourceFile } from '../definition/solution.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import type { RequestBudget } from '../http/request-budget.js';
import { pendingRecords } from '../local/command-queue.js';
import { applyConversions } from '../local/conversions.js';
import { Stage } from '../local/stage.js';
import type { LocalStore } from '../local/store.js';
import type { SecretCollector } from './call.js';
import { type CallContext, createContext } from './context.js';
import { conversionList } from './conversion-list.js';
import { parseJsonProperties, runDatasourceQuery, tablesOf } from './datasource-query.js';
import type { Engine } from './engine.js';
import { fieldsOf } from './field.js';
import { paginate, type StopReason } from './paginate.js';
import { planWrites } from './writes.js';

export interface SyncProgress {
  readonly entity: string;
  readonly function: string;
  readonly pages: number;
  readonly records: number;
}

export interface EntitySync {
  readonly entity: string;
  readonly function: string;
  readonly pages: number;
  /** Rows written (inserted, replaced or merged). */
  readonly records: number;
  readonly stopped: StopReason;
  /** With `allowPartial`, when paging ended early: why (a PagingError, or the failed page's error). */
  readonly error?: unknown;
}

export interface SyncOptions {
  readonly onProgress?: (progress: SyncProgress) => void;
  readonly signal?: AbortSignal;
  /**
   * Commit each entity as soon as its function finished, so later entities' queries read it. By
   * default a datasource is one commit: a failure in any entity leaves every table as it was.
   */
  readonly commitPerEntity?: boolean;
  /** Called with each entity once its rows are committed (with `commitPerEntity`, one by one). */
  readonly onCommitted?: (entity: EntitySync) => void;
  /**
   * Keep the pages fetched when paging ends early (the page cap, a continuation that advanced
   * nothing, a failed later page): the entity says why in `stopped` and `error`. By default such a
   * sync fails and the tables stay as they were.
   */
  readonly allowPartial?: boolean;
  /** Told every credential text the functions' calls use (a preview masks its answer with them). */
  readonly collect?: SecretCollector;
}

/** What the runtime adds to a sync's options (not the library's to set). */
interface RunOptions extends SyncOptions {
  /**
   * One request budget for every function of the run (a preview is one execution); by default
   * each function's pages have their own.
   */
  readonly budget?: RequestBudget | undefined;
}

/** Stages everything `name` writes into `entity`, page by page as the pages arrive. */
async function stageEntity(
  engine: Engine & { store: LocalStore },
  stage: Stage,
  entity: string,
  name: string,
  parameters: Readonly<Record<string, unknown>>,
  call: CallContext,
  options: RunOptions,
): Promise<EntitySync> {
  let records = 0;
  const paged = await paginate(
    engine,
    name,
    parameters,
    { ...call, entity },
    async (execution, page) => {
      const writes = await planWrites(engine, execution, entity, page === 1);
      stage.add(writes);
      for (const w of writes) if (w.kind === 'rows') records += w.rows.length;
      options.onProgress?.({ entity, function: name, pages: page, records });
    },
    {
      signal: options.signal,
      allowPartial: options.allowPartial,
      collect: options.collect,
      budget: options.budget,
    },
  );
  return { entity, function: name, records, ...paged };
}

/** Runs `stageAll` against a fresh stage and commits it; any failure discards everything staged. */
async function inOneCommit<T>(store: LocalStore, stageAll: (stage: Stage) => Promise<T>): Promise<T> {
  const stage = new Stage(store);
  try {
    const result = await stageAll(stage);
    // Rows with changes still queued for the service keep their local state (see pendingRecords).
    stage.commit(pendingRecords(store.db));
    return result;
  } catch (error) {
    stage.discard();
    throw error;
  }
}

/**
 * Fills `entity` from `name`: every page is staged as it arrives, and the table changes in one
 * transaction at the end. Any failure, on any page, discards the stage: the tables stay as they were.
 */
export async function syncFunction(
  engine: Engine & { store: LocalStore },
  entity: string,
  name: string,
  parameters: Readonly<Record<string, unknown>>,
  call: CallContext,
  options: RunOptions = {},
): Promise<EntitySync> {
  const synced = await inOneCommit(engine.store, (stage) =>
    stageEntity(engine, stage, entity, name, parameters, call, options),
  );
  options.onCommitted?.(synced);
  return synced;
}

export interface DatasourceResult {
  readonly datasource: string;
  readonly entities: readonly EntitySync[];
  /**
   * The datasource's rows: its query's (with `jsonProperties` parsed and `conversions` applied), a
   * REST datasource's function rows, a static one's `data`; undefined for a local datasource with
   * no query.
   */
  readonly rows: readonly unknown[] | undefined;
  /**
   * What `@ctx.datasources.<name>` reads: the rows, or with `isDocument` the first row (or null).
   * Undefined for a local datasource with no query (`datasourceValue` reads its tables then).
   */
  readonly value?: unknown;
  /** Whether each entity was committed on its own (`commitPerEntity`) rather than all at once. */
  readonly committedPerEntity: boolean;
}

/** A datasource's value as another datasource reads it (`@ctx.datasources.<name>`). */
export function datasourceValue(
  store: LocalStore,
  file: SourceFile<'datasource'>,
  result: DatasourceResult,
): unknown {
  if (result.value !== undefined || file.definition?.type !== 'datasource.sqlite')
    return result.value ?? null;
  // No query: its tables' rows, as `SELECT id, data` would give them with `data` parsed.
  const rows = tablesOf(file.definition.options).flatMap((table) => store.rows(table));
  return file.definition.options.isDocument ? (rows[0] ?? null) : rows;
}

/**
 * Runs a datasource. A local one syncs each entity from its function (unless `noSync`), then runs
 * its query over the local tables; all entities land in one commit (a later entity's queries read
 * the tables as they were before the sync), unless `commitPerEntity` asks for a commit after each.
 * A REST one runs its functions into a throwaway database and its query there: the local tables
 * are not touched. A static one is its `data`. `call` carries what expressions read besides
 * (`inputs`, `jig.inputs`, `datasources`).
 */
export async function runDatasource(
  engine: Engine & { store: LocalStore },
  file: SourceFile<'datasource'>,
  call: CallContext,
  options: RunOptions = {},
): Promise<DatasourceResult> {
  const definition = file.definition!;
  const ctx = createContext(engine.solution, 'datasource', engine.options, call);
  const evaluate = fieldsOf(file, ctx, engine.expressions);
  const field = (path: PropertyPath, raw: unknown) => evaluate(path, raw, ctx);
  const perEntity = options.commitPerEntity === true;

  if (definition.type === 'datasource.static') {
    const data = await field(['options', 'data'], definition.options.data);
    const rows = Array.isArray(data) ? data : data === undefined || data === null ? [] : [data];
    return { datasource: file.name, entities: [], rows, value: rows, committedPerEntity: false };
  }
  const o = definition.options;
  // A REST datasource writes no local table: its functions fill a throwaway database.
  const rest = o.provider === 'DATA_PROVIDER_REST' && o.noSync !== true;
  // Loaded when needed: `restfn run` of one function must not load SQLite (startup.test.ts).
  const store = rest
    ? new (await import('../local/store.js')).LocalStore(':memory:', { confined: engine.store.confined })
    : engine.store;
  const target = rest ? { ...engine, store } : engine;
  try {
    const syncEntities = async (shared: Stage | undefined) => {
      const entities: EntitySync[] = [];
      if (o.noSync === true) return entities;
      for (const [i, entry] of o.entities.entries()) {
        if (typeof entry === 'string' || entry.function === undefined) {
          store.ensureTable(typeof entry === 'string' ? entry : entry.entity);
          continue;
        }
        const parameters: Record<string, unknown> = {};
        for (const [name, raw] of Object.entries(entry.functionParameters ?? {})) {
          parameters[name] = await field(['options', 'entities', i, 'functionParameters', name], raw);
        }
        const { entity, function: name } = entry;
        entities.push(
          shared
            ? await stageEntity(target, shared, entity, name, parameters, call, options)
            : await syncFunction(target, entity, name, parameters, call, options),
        );
      }
      return entities;
    };
    let entities: EntitySync[];
    if (perEntity) entities = await syncEntities(undefined);
    else {
      entities = await inOneCommit(store, syncEntities);
      for (const synced of entities) options.onCommitted?.(synced);
    }

    let rows: Array<Record<string, unknown>> | undefined;
    if (o.query !== undefined) {
      const parameters: Record<string, unknown> = {};
      for (const [name, raw] of Object.entries(o.queryParameters ?? {})) {
        parameters[name] = await field(['options', 'queryParameters', name], raw);
      }
      rows = runDatasourceQuery(store, file, o, parameters);
    } else if (rest) rows = tablesOf(o).flatMap((table) => store.rows(table));
    if (rows === undefined) return { datasource: file.name, entities, rows, committedPerEntity: perEntity };
    parseJsonProperties(rows, o.jsonProperties);
    if (o.conversions !== undefined)
      await applyConversions(
        rows,
        await conversionList(o.conversions, ['options', 'conversions'], field, ctx),
        engine.files,
      );
    const value = o.isDocument ? (rows[0] ?? null) : rows;
    return { datasource: file.name, entities, rows, value, committedPerEntity: perEntity };
  } finally {
    if (rest) store.close();
  }
}
