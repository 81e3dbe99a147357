import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { z } from 'zod';
import { RestfnError } from '../errors/restfn-error.js';
import type { ScriptModule } from '../expression/scripts/sandbox.js';
import { describe, EXTENSION, findDefinitionFiles } from './definition-files.js';
import { type Diagnostic, diagnostic } from './diagnostic.js';
import { parseDefinition } from './schema/compiled.js';
import {
  type ActionFile,
  type DatasourceDefinition,
  type FileKind,
  type FunctionDefinition,
  SCHEMAS,
  type SolutionDefinition,
} from './schema/index.js';
import { schemaDiagnostics } from './schema-issues.js';
import { quoteAdvice, unquotedExpression } from './unquoted-expression.js';
import { YamlFile } from './yaml-file.js';

export { EXTENSION } from './definition-files.js';
export const SOLUTION_FILE = 'solution.yaml';
/** Folder of each kind of definition inside a solution. */
export const KIND_FOLDERS = { function: 'functions', datasource: 'datasources', action: 'actions' } as const;

interface DefinitionOf {
  function: FunctionDefinition;
  datasource: DatasourceDefinition;
  action: ActionFile;
  solution: SolutionDefinition;
}

/** One loaded file. `definition` is set only when the file passed the schema. */
export interface SourceFile<K extends FileKind = FileKind> {
  readonly kind: K;
  /** Function name (its `functionId`, else the file's base name), or the datasource/action name. */
  readonly name: string;
  readonly path: string;
  readonly yaml: YamlFile;
  /** The file as plain data, whether or not it is valid. */
  readonly data: unknown;
  readonly definition: DefinitionOf[K] | undefined;
}

export interface Solution {
  readonly root: string;
  readonly name: string;
  readonly settings: SourceFile<'solution'> | undefined;
  readonly files: ReadonlyArray<SourceFile<'function' | 'datasource' | 'action'>>;
  /** Functions by name; with duplicate names the first file (in path order) wins. */
  readonly functions: ReadonlyMap<string, SourceFile<'function'>>;
  /** The expression script modules (`scripts/expressions/*.js`), by file name order. */
  readonly scripts: readonly ScriptModule[];
  /** Findings of loading: YAML syntax and schema. `validateSolution` adds the semantic rules. */
  readonly diagnostics: readonly Diagnostic[];
}

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

/** A definition file from its text (read by `loadFile`, or about to be written: an import's check). */
export function parseFile<K extends FileKind>(
  kind: K,
  path: string,
  display: string,
  text: string,
): { source: SourceFile<K>; diagnostics: Diagnostic[] } {
  const yaml = new YamlFile(display, text);
  const diagnostics: Diagnostic[] = [
    ...yaml.syntaxErrors().map((e) => {
      // An expression written plain (`outputTransform: =$merge([$, { "a": 1 }])`): say to quote it.
      // (A repeated key is not about quoting.)
      const repeated = e.message.startsWith('Map keys must be unique');
      const plain = repeated
        ? undefined
        : unquotedExpression(text.split('\n', e.at.line)[e.at.line - 1] ?? '');
      const fix = plain ? quoteAdvice(plain.key) : 'fix the YAML';
      return diagnostic('YAML_SYNTAX', `${e.message}; ${fix}`, e.at);
    }),
    ...yaml.aliasErrors().map((e) => diagnostic('YAML_ALIAS', e.message, e.at)),
  ];
  const data = diagnostics.length === 0 ? yaml.toJS() : undefined;
  let definition: DefinitionOf[K] | undefined;
  if (diagnostics.length === 0) {
    if (data === null || data === undefined) {
      diagnostics.push(
        diagnostic(
          'EMPTY_FILE',
          `the file is empty; write a ${kind} definition (see 'restfn new')`,
          yaml.locate([]),
        ),
      );
    } else {
      const schema = SCHEMAS[kind] as unknown as z.ZodType<DefinitionOf[K]>;
      const result = parseDefinition(schema, data);
      if (result.success) definition = result.data;
      else diagnostics.push(...schemaDiagnostics(yaml, data, result.error.issues));
    }
  }
  const name = kind === 'function' ? functionName(path, data) : baseName(path);
  // Positions found so far are in the diagnostics; a later finding parses the text again.
  yaml.release();
  return { source: { kind, name, path, yaml, data, definition }, diagnostics };
}

/** The file's base name without the extension (the function name unless `functionId` overrides it). */
export function baseName(path: string): string {
  const name = basename(path);
  return name.endsWith(EXTENSION) ? name.slice(0, -EXTENSION.length) : name;
}

function functionName(path: string, data: unknown): string {
  const id = (data as { functionId?: unknown } | null | undefined)?.functionId;
  return typeof id === 'string' && id.length > 0 ? id : baseName(path);
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
