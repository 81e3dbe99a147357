import type { Diagnostic } from '../definition/diagnostic.js';
import type { Solution, SourceFile } from '../definition/solution.js';

/**
 * The validation errors that stop one datasource from syncing: those in its own file, in the
 * functions it runs (and their guards' functions, transitively), and in files every function
 * depends on (solution.yaml, expression scripts). An error in another datasource or an unrelated
 * function blocks only that one: the rest of the solution still syncs.
 */
export function blockingErrors(
  solution: Solution,
  datasource: string,
  diagnostics: readonly Diagnostic[],
): Diagnostic[] {
  const definitionFiles = new Set(solution.files.map((f) => f.yaml.file));
  const file = solution.files.find((f) => f.kind === 'datasource' && f.name === datasource) as
    | SourceFile<'datasource'>
    | undefined;
  const involved = new Set<string>(file ? [file.yaml.file] : []);
  const pending: string[] = [];
  for (const entry of file?.definition?.options.entities ?? []) {
    if (typeof entry !== 'string' && entry.function !== undefined) pending.push(entry.function);
  }
  const seen = new Set<string>();
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    const fn = solution.functions.get(name);
    if (!fn) continue; // the datasource's own file reports the missing function
    involved.add(fn.yaml.file);
    const guard = fn.definition?.guard?.function;
    if (guard !== undefined) pending.push(guard);
  }
  return diagnostics.filter(
    (d) => d.severity === 'error' && (involved.has(d.file) || !definitionFiles.has(d.file)),
  );
}
