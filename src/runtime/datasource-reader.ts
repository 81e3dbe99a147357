import { datasourceNamesIn } from '../definition/datasource-reads.js';
import type { SourceFile } from '../definition/solution.js';
import { expressionSource } from '../expression/source.js';
import type { LocalStore } from '../local/store.js';
import type { CallContext } from './context.js';
import { runWithDependencies } from './datasource-dependencies.js';
import type { Engine } from './engine.js';
import { type DatasourceEngine, type DatasourceResult, datasourceValue, runDatasource } from './sync.js';

/**
 * `@ctx.datasources.<name>` where no sync runs the datasource first (an action's values): the
 * datasource as a screen shows it now. A local one is its query over the local tables as they are
 * (nothing is synced: an action that wants fresh rows syncs them in an earlier step, and a later
 * step reads what that step wrote); a REST one calls its functions; a static one is its data.
 *
 * `fill(raw, datasources)` reads, into `datasources`, each datasource the value `raw` names and
 * `datasources` does not hold yet: what a caller gave (a screen's rows) is never replaced.
 */
export function datasourceReader(
  engine: Engine & { store: LocalStore },
  call: CallContext,
): (raw: unknown, datasources: Record<string, unknown>) => Promise<void> {
  const files = datasourceFiles(engine);
  return async (raw, datasources) => {
    const source = typeof raw === 'string' ? expressionSource(raw, false) : undefined;
    if (!source) return;
    for (const name of datasourceNamesIn(source.body)) {
      // A name no datasource has reads nothing (validate warns UNKNOWN_DATASOURCE).
      if (Object.hasOwn(datasources, name) || !files.has(name)) continue;
      const { value } = await readDatasource(engine, name, { ...call, datasources: { ...datasources } });
      datasources[name] = value;
    }
  };
}

/**
 * The datasource `name` as a screen shows it now, after the datasources it reads (those
 * `call.datasources` holds are not read again): a local one is its query over `engine.store` as it
 * is (nothing synced, no stage written: a read-only database will do), a REST one calls its
 * functions into a throwaway database, a static one is its data. `value` is what
 * `@ctx.datasources.<name>` reads (with `isDocument`, one row or null).
 */
export async function readDatasource(
  engine: DatasourceEngine,
  name: string,
  call: CallContext,
  signal?: AbortSignal,
): Promise<DatasourceResult & { readonly value: unknown }> {
  const files = datasourceFiles(engine);
  const result = await runWithDependencies(
    engine.solution,
    engine.store,
    name,
    call,
    (next) => files.get(next)!,
    (file, context) => runDatasource(engine, asRead(file), context, signal ? { signal } : {}),
  );
  return { ...result, value: datasourceValue(engine.store, files.get(name)!, result) };
}

function datasourceFiles(engine: Pick<Engine, 'solution'>): Map<string, SourceFile<'datasource'>> {
  return new Map(
    engine.solution.files
      .filter((f) => f.kind === 'datasource' && f.definition)
      .map((f) => [f.name, f as SourceFile<'datasource'>]),
  );
}

/** A local datasource read rather than synced: its query alone, over the tables as they are. */
function asRead(file: SourceFile<'datasource'>): SourceFile<'datasource'> {
  const definition = file.definition!;
  if (definition.type !== 'datasource.sqlite' || definition.options.provider === 'DATA_PROVIDER_REST')
    return file;
  return { ...file, definition: { ...definition, options: { ...definition.options, noSync: true } } };
}
