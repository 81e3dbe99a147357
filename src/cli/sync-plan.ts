import type { Diagnostic } from '../definition/diagnostic.js';
import type { Solution } from '../definition/solution.js';
import { filesUsedBy } from '../definition/used-files.js';

/**
 * The validation errors that stop one datasource from syncing: those in the files it uses (its own,
 * the functions it runs and their guards' functions, solution.yaml) and in files outside the
 * definitions, which every function may depend on (expression scripts). An error in another datasource or an
 * unrelated function blocks only that one: the rest of the solution still syncs.
 */
export function blockingErrors(
  solution: Solution,
  datasource: string,
  diagnostics: readonly Diagnostic[],
): Diagnostic[] {
  const used = filesUsedBy(solution, [datasource]);
  // Definition files (loaded or not: a broken link is still a `.platform` name) block only their users.
  return diagnostics.filter(
    (d) => d.severity === 'error' && (used.has(d.file) || !d.file.endsWith('.platform')),
  );
}
