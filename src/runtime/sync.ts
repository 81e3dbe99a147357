import { inputNamesIn } from '../definition/datasource-reads.js';
import type { SqliteDatasource } from '../definition/schema/datasource.js';
import type { SourceFile } from '../definition/solution.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import type { RequestBudget } from '../http/request-budget.js';
import { pendingRecords } from '../local/command-queue.js';
import { applyConversions } from '../local/conversions.js';
import type { ReadOnlyStore } from '../local/read-only-store.js';
import { Stage } from '../local/stage.js';
import type { LocalStore } from '../local/store.js';
import type { SecretCollector } from './call.js';
import { type CallContext, createContext } from './context.js';
import { conversionList } from './conversion-list.js';
import { parseJsonProperties, runDatasourceQuery, tablesOf } from './datasource-query.js';
import type { Engine } from './engine.js';
import { InputRequiredError, ParameterError } from './errors.js';
import { fieldsOf } from './field.js';
import { inputsOf, withInputs } from './inputs.js';
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

/**
 * The local database a datasource runs over: the device's, or for a read (`noSync`: nothing is
 * synced, its query alone) the read-only one `restfn query` opens.
 */
export type DatasourceStore = LocalStore | ReadOnlyStore;

/** An engine whose datasources run over `store` (a sync needs a `LocalStore`; a read either). */
export type DatasourceEngine = Omit<Engine, 'store'> & { readonly store: DatasourceStore };

/** A datasource's value as another datasource reads it (`@ctx.datasources.<name>`). */
export function datasourceValue(
  store: Pick<DatasourceStore, 'rows'>,
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
  engine: DatasourceEngine,
  file: SourceFile<'datasource'>,
  given: CallContext,
  options: RunOptions = {},
): Promise<DatasourceResult> {
  const definition = file.definition!;
  // Inputs given as either `inputs` or `jig.inputs` are read as both, here and in its functions.
  const call = withInputs(given);
  const ctx = createContext(engine.solution, 'datasource', engine.options, call);
  const evaluate = fieldsOf(file, ctx, engine.expressions);
  const field = (path: PropertyPath, raw: unknown) => evaluate(path, raw, ctx);
  const perEntity = options.commitPerEntity === true;

  if (definition.type === 'datasource.static') {
    const data = await evaluateData(field, ['options', 'data'], definition.options.data);
    const rows = Array.isArray(data) ? data : data === undefined || data === null ? [] : [data];
    return { datasource: file.name, entities: [], rows, value: rows, committedPerEntity: false };
  }
  const o = definition.options;
  // A REST datasource writes no local table: its functions fill a throwaway database.
  const rest = o.provider === 'DATA_PROVIDER_REST' && o.noSync !== true;
  // Loaded when needed: `restfn run` of one function must not load SQLite (startup.test.ts).
  const store: DatasourceStore = rest
    ? new (await import('../local/store.js')).LocalStore(':memory:', {
        confined: 'confined' in engine.store && engine.store.confined,
      })
    : engine.store;
  try {
    // Only a read (`noSync`) runs over a read-only database: it syncs nothing.
    const writable = (): LocalStore => {
      if (!('readOnly' in store)) return store;
      throw new Error(`unreachable: datasource '${file.name}' synced over a read-only database`);
    };
    const syncEntities = async (shared: Stage | undefined) => {
      const entities: EntitySync[] = [];
      const target = { ...engine, store: writable() };
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
        try {
          entities.push(
            shared
              ? await stageEntity(target, shared, entity, name, parameters, call, options)
              : await syncFunction(target, entity, name, parameters, call, options),
          );
        } catch (error) {
          throw inputRequired(error, file, entry, call) ?? error;
        }
      }
      return entities;
    };
    let entities: EntitySync[];
    // A read (`noSync`) syncs nothing, so it has nothing to commit: it writes no stage either.
    if (o.noSync === true) entities = [];
    else if (perEntity) entities = await syncEntities(undefined);
    else {
      entities = await inOneCommit(writable(), syncEntities);
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

/**
 * A required parameter missing because the datasource gives it from an input the caller did not
 * give (`jobId: =@ctx.jig.inputs.jobId`, opened with no `jobId`): said as that input, not as a
 * parameter the datasource does not give. Undefined for any other failure.
 */
function inputRequired(
  error: unknown,
  file: SourceFile<'datasource'>,
  entry: Exclude<SqliteDatasource['options']['entities'][number], string>,
  call: CallContext,
): InputRequiredError | undefined {
  if (!(error instanceof ParameterError) || error.code !== 'PARAMETER_REQUIRED') return undefined;
  const given = inputsOf(call);
  const inputs = [
    ...new Set(
      error.missing.flatMap((p) =>
        inputNamesIn(entry.functionParameters?.[p]).filter((name) => given[name] == null),
      ),
    ),
  ];
  if (inputs.length === 0) return undefined;
  const list = inputs.join(', ');
  return new InputRequiredError(
    file.name,
    inputs,
    `datasource '${file.name}' reads input ${list} for ${entry.function}'s required ${error.missing.length === 1 ? 'parameter' : 'parameters'} ${error.missing.join(', ')}, and it was not given: give it in the context's inputs (a screen opens the datasource with them)`,
  );
}

/**
 * A static datasource's `data` as a screen shows it: one expression giving the rows, or rows whose
 * values are expressions (`from: =$now()`), each evaluated where it stands, however deep.
 */
async function evaluateData(
  field: (path: PropertyPath, raw: unknown) => Promise<unknown>,
  path: PropertyPath,
  raw: unknown,
): Promise<unknown> {
  if (Array.isArray(raw)) {
    const items: unknown[] = [];
    for (const [i, item] of raw.entries()) items.push(await evaluateData(field, [...path, i], item));
    return items;
  }
  if (raw !== null && typeof raw === 'object') {
    const entries: Array<[string, unknown]> = [];
    for (const [key, value] of Object.entries(raw)) {
      entries.push([key, await evaluateData(field, [...path, key], value)]);
    }
    return Object.fromEntries(entries);
  }
  return field(path, raw);
}
