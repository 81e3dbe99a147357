import type { SourceFile } from '../definition/solution.js';
import { runQuery } from '../local/queries.js';
import { Stage } from '../local/stage.js';
import type { LocalStore } from '../local/store.js';
import { type CallContext, createContext } from './context.js';
import { fieldsOf } from './field.js';
import { paginate, type StopReason } from './paginate.js';
import type { Engine } from './pipeline.js';
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
  readonly tables: readonly string[];
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
  onProgress?: (progress: SyncProgress) => void,
  signal?: AbortSignal,
): Promise<EntitySync> {
  const stage = new Stage(engine.store);
  let records = 0;
  try {
    const { pages, stopped } = await paginate(
      engine,
      name,
      parameters,
      { ...call, entity },
      async (execution, page) => {
        const writes = await planWrites(engine, execution, entity, page === 1);
        stage.add(writes);
        for (const w of writes) if (w.kind === 'rows') records += w.rows.length;
        onProgress?.({ entity, function: name, pages: page, records });
      },
      signal,
    );
    const { tables } = stage.commit();
    return { entity, function: name, pages, records, stopped, tables };
  } catch (error) {
    stage.discard();
    throw error;
  }
}

export interface DatasourceResult {
  readonly datasource: string;
  readonly entities: readonly EntitySync[];
  /** The datasource's `query` result (rows with `data` parsed); undefined when it has no query. */
  readonly rows: readonly unknown[] | undefined;
}

/** Runs a datasource: syncs each entity from its function, then runs its query. */
export async function runDatasource(
  engine: Engine & { store: LocalStore },
  file: SourceFile<'datasource'>,
  call: CallContext,
  onProgress?: (progress: SyncProgress) => void,
  signal?: AbortSignal,
): Promise<DatasourceResult> {
  const options = file.definition!.options;
  const ctx = createContext(engine.solution, 'datasource', engine.options.user, call);
  const evaluate = fieldsOf(file, ctx, engine.expressions);
  const field = (path: Array<string | number>, raw: unknown) => evaluate(path, raw, ctx);
  const entities: EntitySync[] = [];
  for (const [i, entry] of options.entities.entries()) {
    if (typeof entry === 'string' || entry.function === undefined) {
      engine.store.ensureTable(typeof entry === 'string' ? entry : entry.entity);
      continue;
    }
    const parameters: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(entry.functionParameters ?? {})) {
      parameters[name] = await field(['options', 'entities', i, 'functionParameters', name], raw);
    }
    entities.push(
      await syncFunction(engine, entry.entity, entry.function, parameters, call, onProgress, signal),
    );
  }
  let rows: unknown[] | undefined;
  if (options.query !== undefined) {
    const parameters: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(options.queryParameters ?? {})) {
      parameters[name] = await field(['options', 'queryParameters', name], raw);
    }
    rows = runQuery(engine.store, options.query, parameters) as unknown[];
  }
  return { datasource: file.name, entities, rows };
}
