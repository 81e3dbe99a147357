import type { Diagnostic } from '../definition/diagnostic.js';
import type { Solution } from '../definition/solution.js';
import { filesUsedBy } from '../definition/used-files.js';

/**
 * The validation errors that stop one datasource from syncing: those in the files it uses (its own,
 * the functions it runs and their guards' functions, solution.yaml) and in files outside the
 * definitions every function depends on (expression scripts). An error in another datasource or an
 * unrelated function blocks only that one: the rest of the solution still syncs.
 */
export function blockingErrors(
  solution: Solution,
  datasource: string,
  diagnostics: readonly Diagnostic[],
): Diagnostic[] {
  const definitionFiles = new Set(solution.files.map((f) => f.yaml.file));
  const used = filesUsedBy(solution, [datasource]);
  return diagnostics.filter(
    (d) => d.severity === 'error' && (used.has(d.file) || !definitionFiles.has(d.file)),
  );
}
