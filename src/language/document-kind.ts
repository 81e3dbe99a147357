import { dirname, join, relative, sep } from 'node:path';
import { EXTENSION } from '../definition/definition-files.js';
import type { FileKind } from '../definition/schema/index.js';
import { kindOfPath, SCRIPTS_FOLDER } from '../definition/solution.js';

/** What a solution's file is to the language service: a definition of a kind, a script, or neither. */
export type DocumentKind = FileKind | 'script';

/**
 * Judged by the path alone (an editor may call a `.platform` file `yaml`, `restfn` or plain text):
 * `*.platform` under functions/, datasources/, actions/; `solution.yaml`; `scripts/expressions/*.js`.
 */
export function documentKind(root: string, path: string): DocumentKind | undefined {
  const rel = relative(root, path);
  if (rel.startsWith('..') || rel === '') return undefined;
  if (dirname(path) === join(root, SCRIPTS_FOLDER) && path.endsWith('.js')) return 'script';
  const kind = kindOfPath(root, path);
  if (kind === 'solution') return kind;
  if (kind && path.endsWith(EXTENSION) && rel.split(sep).length > 1) return kind;
  return undefined;
}
