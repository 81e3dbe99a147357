import { datasourcesRead, syncPlan } from '../datasource-reads.js';
import type { Solution, SourceFile } from '../solution.js';
import { didYouMean } from '../suggest.js';
import type { Reporter } from './reporter.js';

/**
 * `@ctx.datasources.<name>` reads: a name with no datasource reads nothing (a warning, in any
 * file), and datasources that read each other in a cycle cannot be synced (an error at each
 * one's read of the next, so every datasource of the cycle is blocked).
 */
export function datasourceReads(file: SourceFile, r: Reporter, solution: Solution): void {
  // Any file may read a datasource (an action's values, solution.yaml's named expressions); only
  // datasources are synced in an order, so only they can be in a cycle.
  const names = solution.files.filter((f) => f.kind === 'datasource').map((f) => f.name);
  const reads = datasourcesRead(file);
  for (const read of reads) {
    if (names.includes(read.name)) continue;
    r.report(
      'UNKNOWN_DATASOURCE',
      `@ctx.datasources.${read.name}: the solution has no datasource '${read.name}'${didYouMean(read.name, names)}, so it reads nothing`,
      read.path,
      { index: read.index },
    );
  }
  if (reads.length === 0 || file.kind !== 'datasource') return;
  const { cycle } = syncPlan(solution, [file.name]);
  const at = cycle?.names.indexOf(file.name) ?? -1;
  if (!cycle || at === -1) return;
  const next = cycle.names[at + 1]!;
  const read = reads.find((x) => x.name === next)!;
  const route = [...cycle.names.slice(at, -1), ...cycle.names.slice(0, at + 1)];
  r.report(
    'DATASOURCE_CYCLE',
    `datasources read each other in a cycle: ${route.join(' -> ')}; a sync cannot run any of them first: make one of them stop reading the other`,
    read.path,
    { index: read.index },
  );
}
