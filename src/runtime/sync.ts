import type { SourceFile } from '../definition/solution.js';
import type { RequestBudget } from '../http/request-budget.js';
import { pendingRecords } from '../local/command-queue.js';
import { runQuery } from '../local/queries.js';
import { Stage } from '../local/stage.js';
import type { LocalStore } from '../local/store.js';
import type { SecretCollector } from './call.js';
import { type CallContext, createContext } from './context.js';
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
  /** The datasource's `query` result (rows with `data` parsed); undefined when it has no query. */
  readonly rows: readonly unknown[] | undefined;
  /** Whether each entity was committed on its own (`commitPerEntity`) rather than all at once. */
  readonly committedPerEntity: boolean;
}

/**
 * Runs a datasource: syncs each entity from its function, then runs its query. All entities land
 * in one commit (a later entity's queries read the tables as they were before the sync), unless
 * `commitPerEntity` asks for a commit after each.
 */
export async function runDatasource(
  engine: Engine & { store: LocalStore },
  file: SourceFile<'datasource'>,
  call: CallContext,
  options: RunOptions = {},
): Promise<DatasourceResult> {
  const definition = file.definition!.options;
  const ctx = createContext(engine.solution, 'datasource', engine.options, call);
  const evaluate = fieldsOf(file, ctx, engine.expressions);
  const field = (path: Array<string | number>, raw: unknown) => evaluate(path, raw, ctx);
  const perEntity = options.commitPerEntity === true;

  const syncEntities = async (shared: Stage | undefined) => {
    const entities: EntitySync[] = [];
    for (const [i, entry] of definition.entities.entries()) {
      if (typeof entry === 'string' || entry.function === undefined) {
        engine.store.ensureTable(typeof entry === 'string' ? entry : entry.entity);
        continue;
      }
      const parameters: Record<string, unknown> = {};
      for (const [name, raw] of Object.entries(entry.functionParameters ?? {})) {
        parameters[name] = await field(['options', 'entities', i, 'functionParameters', name], raw);
      }
      const { entity, function: name } = entry;
      entities.push(
        shared
          ? await stageEntity(engine, shared, entity, name, parameters, call, options)
          : await syncFunction(engine, entity, name, parameters, call, options),
      );
    }
    return entities;
  };
  let entities: EntitySync[];
  if (perEntity) entities = await syncEntities(undefined);
  else {
    entities = await inOneCommit(engine.store, syncEntities);
    for (const synced of entities) options.onCommitted?.(synced);
  }

  let rows: unknown[] | undefined;
  if (definition.query !== undefined) {
    const parameters: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(definition.queryParameters ?? {})) {
      parameters[name] = await field(['options', 'queryParameters', name], raw);
    }
    rows = runQuery(engine.store, definition.query, parameters) as unknown[];
  }
  return { datasource: file.name, entities, rows, committedPerEntity: perEntity };
}
