import { findSolutionRoot } from '../definition/solution.js';

/** `--solution DIR` when given, else the solution found from the current folder upward. */
export function solutionDir(option: string | undefined): string {
  return option ?? findSolutionRoot(process.cwd());
}
