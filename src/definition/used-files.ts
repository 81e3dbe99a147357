import { datasourcesRead } from './datasource-reads.js';
import { entitiesOf } from './schema/datasource.js';
import type { Solution, SourceFile } from './solution.js';

/**
 * The files running `datasources` reads (as `Diagnostic.file` names them): solution.yaml, the
 * datasource files, the functions they fill their tables with and those functions' guards, to any
 * depth, and the datasources they read (`@ctx.datasources.x`: a sync runs those first). A command validates these and no others, so a broken file elsewhere in the solution
 * (`restfn validate` reports it) does not stop it.
 */
export function filesUsedBy(solution: Solution, datasources: readonly string[]): Set<string> {
  const used = new Set<string>(solution.settings ? [solution.settings.yaml.file] : []);
  const functions: string[] = [];
  const wanted = new Set(datasources);
  for (const name of wanted) {
    const file = solution.files.find((f) => f.kind === 'datasource' && f.name === name);
    if (!file) continue;
    for (const read of datasourcesRead(file)) wanted.add(read.name);
    used.add(file.yaml.file);
    const definition = (file as SourceFile<'datasource'>).definition;
    for (const entry of definition ? entitiesOf(definition) : []) {
      if (typeof entry !== 'string' && entry.function !== undefined) functions.push(entry.function);
    }
  }
  const seen = new Set<string>();
  for (let name = functions.pop(); name !== undefined; name = functions.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    const file = solution.functions.get(name);
    if (!file) continue;
    used.add(file.yaml.file);
    const guard = file.definition?.guard?.function;
    if (guard !== undefined) functions.push(guard);
  }
  return used;
}
