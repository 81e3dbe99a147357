import { datasourceNamesIn } from '../definition/datasource-reads.js';
import type { SourceFile } from '../definition/solution.js';
import { expressionSource } from '../expression/source.js';
import type { LocalStore } from '../local/store.js';
import type { CallContext } from './context.js';
import { runWithDependencies } from './datasource-dependencies.js';
import type { Engine } from './engine.js';
import { datasourceValue, runDatasource } from './sync.js';

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
  const files = new Map(
    engine.solution.files
      .filter((f) => f.kind === 'datasource' && f.definition)
      .map((f) => [f.name, f as SourceFile<'datasource'>]),
  );
  return async (raw, datasources) => {
    const source = typeof raw === 'string' ? expressionSource(raw, false) : undefined;
    if (!source) return;
    for (const name of datasourceNamesIn(source.body)) {
      // A name no datasource has reads nothing (validate warns UNKNOWN_DATASOURCE).
      if (Object.hasOwn(datasources, name) || !files.has(name)) continue;
      const result = await runWithDependencies(
        engine.solution,
        engine.store,
        name,
        { ...call, datasources: { ...datasources } },
        (next) => files.get(next)!,
        (file, context) => runDatasource(engine, asRead(file), context),
      );
      datasources[name] = datasourceValue(engine.store, files.get(name)!, result);
    }
  };
}

/** A local datasource read rather than synced: its query alone, over the tables as they are. */
function asRead(file: SourceFile<'datasource'>): SourceFile<'datasource'> {
  const definition = file.definition!;
  if (definition.type !== 'datasource.sqlite' || definition.options.provider === 'DATA_PROVIDER_REST')
    return file;
  return { ...file, definition: { ...definition, options: { ...definition.options, noSync: true } } };
}
