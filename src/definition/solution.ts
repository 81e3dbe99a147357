import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { RestfnError } from '../errors/restfn-error.js';
import type { ScriptModule } from '../expression/scripts/sandbox.js';
import { describe, findDefinitionFiles } from './definition-files.js';
import { type Diagnostic, diagnostic } from './diagnostic.js';
import type { FileKind } from './schema/index.js';
import { baseName, parseFile, type Solution, type SourceFile } from './source-file.js';
import { YamlFile } from './yaml-file.js';

export {
  baseName,
  type DefinitionOf,
  EXTENSION,
  parseFile,
  type Solution,
  type SourceFile,
} from './source-file.js';
export const SOLUTION_FILE = 'solution.yaml';
/** Folder of each kind of definition inside a solution. */
export const KIND_FOLDERS = { function: 'functions', datasource: 'datasources', action: 'actions' } as const;

export class SolutionNotFoundError extends RestfnError {
  constructor(message: string) {
    super('SOLUTION_NOT_FOUND', message);
  }
}

/**
 * The solution containing `start`: the nearest folder upward holding `solution.yaml`, else the
 * nearest one holding a `functions` folder.
 */
export function findSolutionRoot(start: string): string {
  let fallback: string | undefined;
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, SOLUTION_FILE))) return dir;
    if (!fallback && isDirectory(join(dir, KIND_FOLDERS.function))) fallback = dir;
    if (dirname(dir) === dir) break;
  }
  if (fallback) return fallback;
  throw new SolutionNotFoundError(
    `no solution found at or above ${resolve(start)}: a solution folder holds ${SOLUTION_FILE} or a functions/ folder (pass --solution DIR)`,
  );
}

export interface LoadOptions {
  /** Paths in findings are shown relative to this folder. @default process.cwd() */
  readonly displayBase?: string;
}

/** Reads and schema-checks every definition file of the solution at `root`. */
export function loadSolution(root: string, options: LoadOptions = {}): Solution {
  const absRoot = resolve(root);
  if (!isDirectory(absRoot)) throw new SolutionNotFoundError(`solution folder not found: ${absRoot}`);
  const displayBase = options.displayBase ?? process.cwd();
  const diagnostics: Diagnostic[] = [];
  const load = <K extends FileKind>(kind: K, path: string): SourceFile<K> => {
    const file = loadFile(kind, path, displayPath(path, displayBase));
    diagnostics.push(...file.diagnostics);
    return file.source;
  };

  const solutionPath = join(absRoot, SOLUTION_FILE);
  const settings = existsSync(solutionPath) ? load('solution', solutionPath) : undefined;
  const files: Array<SourceFile<'function' | 'datasource' | 'action'>> = [];
  const functions = new Map<string, SourceFile<'function'>>();
  for (const kind of ['function', 'datasource', 'action'] as const) {
    const found = findDefinitionFiles(join(absRoot, KIND_FOLDERS[kind]));
    for (const skip of found.skipped) {
      const what = skip.code === 'SYMLINK_LOOP' ? 'skipped' : 'not read';
      const at = { file: displayPath(skip.path, displayBase), line: 1, col: 1 };
      diagnostics.push(diagnostic(skip.code, `${what}: ${skip.reason}`, at));
    }
    for (const path of found.files) {
      const file = load(kind, path);
      files.push(file);
      if (file.kind === 'function' && !functions.has(file.name))
        functions.set(file.name, file as SourceFile<'function'>);
    }
  }
  const name = settings?.definition?.name ?? basename(absRoot);
  const scripts = scriptModules(join(absRoot, SCRIPTS_FOLDER), displayBase);
  return { root: absRoot, name, settings, files, functions, scripts, diagnostics };
}

/** Where a solution keeps its expression scripts: `$<file name>.<function>(...)` in expressions. */
export const SCRIPTS_FOLDER = join('scripts', 'expressions');

function scriptModules(dir: string, displayBase: string): ScriptModule[] {
  if (!isDirectory(dir)) return [];
  return readdirSync(dir)
    .filter((entry) => entry.endsWith('.js') && statSync(join(dir, entry)).isFile())
    .sort()
    .map((entry) => ({
      name: entry.slice(0, -3),
      file: displayPath(join(dir, entry), displayBase),
      source: readFileSync(join(dir, entry), 'utf8'),
    }));
}

/** Reads one file and checks it against the schema of its kind. */
export function loadFile<K extends FileKind>(
  kind: K,
  path: string,
  display: string,
): { source: SourceFile<K>; diagnostics: Diagnostic[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    // Listed but unreadable (permissions, a link that broke meanwhile): this file alone is missing.
    const yaml = new YamlFile(display, '');
    const at = { file: display, line: 1, col: 1 };
    const code = (error as { code?: string }).code === 'ELOOP' ? 'SYMLINK_LOOP' : 'FILE_UNREADABLE';
    return {
      source: { kind, name: baseName(path), path, yaml, data: undefined, definition: undefined },
      diagnostics: [diagnostic(code, `not read: ${describe(error)}`, at)],
    };
  }
  return parseFile(kind, path, display, text);
}

/** Every `*.platform` file below `dir`, in a stable order (see `findDefinitionFiles`). */
export function definitionFiles(dir: string): string[] {
  return findDefinitionFiles(dir).files;
}

/** Which kind a file is, from the kind folder it sits in (`functions/`, `datasources/`, `actions/`). */
export function kindOfPath(root: string, path: string): FileKind | undefined {
  const first = relative(root, path).split(sep)[0];
  if (resolve(path) === join(root, SOLUTION_FILE)) return 'solution';
  for (const [kind, folder] of Object.entries(KIND_FOLDERS)) if (first === folder) return kind as FileKind;
  return undefined;
}

/** How findings name the file at `path`: relative to `base` (the working folder), when inside it. */
export function displayPath(path: string, base: string): string {
  const rel = relative(base, path);
  return rel.startsWith('..') ? path : rel;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
