import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { prepareSolution, revivePrepared } from '../../definition/prepared-solution.js';
import { loadSolution } from '../../definition/solution.js';
import type { Solution } from '../../definition/source-file.js';

/**
 * A published version as a worker loads it: from its prepared form when one is there (written by
 * whichever worker of this instance loaded the version first), else from its files, writing the
 * prepared form for the next. `bytes`: the prepared form's length, what the solution cache counts
 * a runtime by.
 */
export function loadPublished(
  root: string,
  prepared: string | undefined,
): { solution: Solution; bytes: number } {
  if (prepared) {
    const text = readQuietly(prepared);
    const revived = text === undefined ? undefined : revivePrepared(text);
    if (revived && revived.root === root) return { solution: revived, bytes: text!.length };
  }
  const solution = loadSolution(root, { displayBase: root });
  const text = prepareSolution(solution);
  if (prepared) writeQuietly(prepared, text);
  return { solution, bytes: text.length };
}

function readQuietly(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Written beside and renamed into place (a reader never sees half of it; two workers writing at
 * once each write whole files). Not written is no failure: the next load parses the files again.
 */
function writeQuietly(path: string, text: string): void {
  const staging = `${path}.${randomUUID()}.tmp`;
  try {
    writeFileSync(staging, text, { mode: 0o600 });
    renameSync(staging, path);
  } catch {
    rmSync(staging, { force: true });
  }
}
