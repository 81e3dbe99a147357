import { syncPlan } from '../definition/datasource-reads.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import type { CallContext } from './context.js';
import { DatasourceCycleError } from './errors.js';
import { type DatasourceResult, type DatasourceStore, datasourceValue } from './sync.js';

/**
 * The order a sync of `wanted` runs datasources in (those they read first, added when not wanted);
 * a cycle is DATASOURCE_CYCLE at the read that closes it.
 */
export function syncOrder(solution: Solution, wanted: readonly string[]): string[] {
  const plan = syncPlan(solution, wanted);
  if (plan.order) return plan.order;
  const { names, at, file } = plan.cycle;
  const where = file.yaml.locateInValue(at.path, at.index);
  throw new DatasourceCycleError(
    `${where.file}:${where.line}:${where.col}: datasources read each other in a cycle: ${names.join(' -> ')}; one of them must stop reading the other`,
  );
}

/**
 * Runs the datasource `name` after the datasources it reads (`@ctx.datasources.x`), handing each
 * one's value to the next. Those the caller already has (`call.datasources`) are not run again.
 */
export async function runWithDependencies(
  solution: Solution,
  store: Pick<DatasourceStore, 'rows'>,
  name: string,
  call: CallContext,
  fileOf: (name: string) => SourceFile<'datasource'>,
  run: (file: SourceFile<'datasource'>, call: CallContext) => Promise<DatasourceResult>,
): Promise<DatasourceResult & { readonly dependencies: readonly DatasourceResult[] }> {
  const given = (call.datasources ?? {}) as Readonly<Record<string, unknown>>;
  const values: Record<string, unknown> = { ...given };
  const dependencies: DatasourceResult[] = [];
  for (const next of syncOrder(solution, [name])) {
    if (next !== name && Object.hasOwn(given, next)) continue;
    const file = fileOf(next);
    const result = await run(file, { ...call, datasources: { ...values } });
    if (next === name) return { ...result, dependencies };
    dependencies.push(result);
    values[next] = datasourceValue(store, file, result);
  }
  throw new Error(`unreachable: '${name}' is not in its own sync order`);
}
