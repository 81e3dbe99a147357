import type { FileKind } from './schema/index.js';
import { parseFile, type Solution, type SourceFile } from './source-file.js';

// A solution from its files' texts by path (`functions/x.platform`, `solution.yaml`,
// `scripts/expressions/x.js`: what `restfn publish` uploads and the platform's versions hold),
// reading nothing: how the browser client loads the published version it fetched or kept.

const KIND_OF_FOLDER: Readonly<Record<string, FileKind>> = {
  functions: 'function',
  datasources: 'datasource',
  actions: 'action',
};
const KIND_ORDER: Readonly<Record<FileKind, number>> = { solution: 0, function: 1, datasource: 2, action: 3 };
const SCRIPT_PATH = /^scripts\/expressions\/([^/]+)\.js$/;

/**
 * The files in loadSolution's order (solution.yaml, then functions, datasources and actions, each
 * by path); paths in findings are the files' paths with `label` before them (`demo@3/functions/...`).
 * Files of no known kind are left out.
 */
export function solutionFromFiles(
  name: string,
  files: Readonly<Record<string, string>>,
  label = name,
): Solution {
  const paths = Object.keys(files).sort();
  const parsed = paths
    .map((path) => ({ path, kind: kindOf(path) }))
    .filter((p): p is { path: string; kind: FileKind } => p.kind !== undefined)
    .sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind])
    .map(({ path, kind }) => parseFile(kind, path, `${label}/${path}`, files[path] as string));
  const settings = parsed.find((p) => p.source.kind === 'solution')?.source as
    | SourceFile<'solution'>
    | undefined;
  const definitions = parsed.map((p) => p.source).filter((s) => s.kind !== 'solution') as Array<
    SourceFile<'function' | 'datasource' | 'action'>
  >;
  const functions = new Map<string, SourceFile<'function'>>();
  for (const file of definitions)
    if (file.kind === 'function' && !functions.has(file.name))
      functions.set(file.name, file as SourceFile<'function'>);
  const scripts = paths.flatMap((path) => {
    const module = SCRIPT_PATH.exec(path)?.[1];
    return module ? [{ name: module, file: `${label}/${path}`, source: files[path] as string }] : [];
  });
  return {
    root: '',
    name: settings?.definition?.name ?? name,
    settings,
    files: definitions,
    functions,
    scripts,
    diagnostics: parsed.flatMap((p) => p.diagnostics),
  };
}

function kindOf(path: string): FileKind | undefined {
  if (path === 'solution.yaml') return 'solution';
  const [folder, ...rest] = path.split('/');
  return rest.length > 0 && path.endsWith('.platform') ? KIND_OF_FOLDER[folder as string] : undefined;
}
