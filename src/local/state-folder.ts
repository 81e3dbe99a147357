import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { privateFolder } from './private-path.js';

/** The device-side state folder of a solution (conventions.md): `<solution>/.restfn/`. */
export const STATE_FOLDER = '.restfn';

/**
 * The state folder's path. It holds tokens and personal data, so it is owner-only (0700): created
 * so by the stores, and tightened here when an older restfn left it readable by others.
 */
export function stateFolder(solutionRoot: string): string {
  const folder = join(solutionRoot, STATE_FOLDER);
  if (existsSync(folder)) privateFolder(folder);
  return folder;
}
