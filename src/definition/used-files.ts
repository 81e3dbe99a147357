import type { Solution, SourceFile } from './solution.js';

/**
 * The files running `datasources` reads (as `Diagnostic.file` names them): solution.yaml, the
 * datasource files, the functions they fill their tables with and those functions' guards, to any
 * depth. A command validates these and no others, so a broken file elsewhere in the solution
 * (`restfn validate` reports it) does not stop it.
 */
export function filesUsedBy(solution: Solution, datasources: readonly string[]): Set<string> {
  const used = new Set<string>(solution.settings ? [solution.settings.yaml.file] : []);
  const functions: string[] = [];
  for (const file of solution.files) {
    if (file.kind !== 'datasource' || !datasources.includes(file.name)) continue;
    used.add(file.yaml.file);
    for (const entry of (file as SourceFile<'datasource'>).definition?.options.entities ?? []) {
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
