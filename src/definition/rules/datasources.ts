import { datasourcesRead, syncPlan } from '../datasource-reads.js';
import { valueAt } from '../schema-issues.js';
import type { Solution, SourceFile } from '../solution.js';
import { closest, meantText } from '../suggest.js';
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
    const near = closest(read.name, names);
    // The name's place: after `datasources.` in the value (the read's index is its `@ctx`).
    const value = valueAt(file.data, read.path);
    const word = typeof value === 'string' ? value.indexOf(`datasources.${read.name}`, read.index) : -1;
    r.report(
      'UNKNOWN_DATASOURCE',
      `@ctx.datasources.${read.name}: the solution has no datasource '${read.name}'${meantText(near)}, so it reads nothing`,
      read.path,
      {
        index: read.index,
        meant:
          near && word !== -1
            ? { word: read.name, text: near, index: word + 'datasources.'.length }
            : undefined,
      },
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
