import type { Runtimes } from './runtimes.js';

/** What an execution, call or preview names: a function, a datasource or an action. */
export type TargetKind = 'function' | 'datasource' | 'action';

/** The label of anything the published version does not hold. */
export const UNKNOWN_LABEL = '(unknown)';

/** The names a published version holds, by kind (`Runtimes.publishedNames`). */
export type PublishedNames = Readonly<Record<TargetKind, ReadonlySet<string>>>;

/**
 * The metric labels of one execution: the solution and the target only as the published version
 * names them, never the caller's text. A name the version does not hold (made up, or the solution
 * has no published version) is `(unknown)`, whatever the outcome: the series are bounded by what
 * authors published, not by what callers send.
 */
export function labelsOf(
  published: PublishedNames | undefined,
  solution: string,
  kind: TargetKind,
  name: string,
): { solution: string; target: string } {
  if (!published) return { solution: UNKNOWN_LABEL, target: UNKNOWN_LABEL };
  return { solution, target: published[kind].has(name) ? name : UNKNOWN_LABEL };
}

/** The labels of one execution, read from the solution's current version (none published: unknown). */
export async function executionLabels(
  runtimes: Pick<Runtimes, 'publishedNames'>,
  solution: string,
  kind: TargetKind,
  name: string,
): Promise<{ solution: string; target: string }> {
  let published: PublishedNames | undefined;
  try {
    published = await runtimes.publishedNames(solution);
  } catch {
    published = undefined;
  }
  return labelsOf(published, solution, kind, name);
}
