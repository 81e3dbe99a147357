import { RESTFN_VERSION } from '../version.js';
import type { Diagnostic } from './diagnostic.js';
import type { FileKind } from './schema/index.js';
import type { Solution, SourceFile } from './source-file.js';
import { YamlFile } from './yaml-file.js';

// A loaded solution as JSON text, and back: what the platform keeps beside a published version so
// that a worker makes the version's runtime without reading and parsing its YAML again (issue 41:
// parsing was most of the ~9 ms a runtime cost, paid again wherever a solution's executions ran).
// The texts go with it, so a finding can still point at `file:line:col`; a file is parsed again
// only when a position in it is asked for.

/**
 * The form's version: a prepared text made by another restfn (another schema, other defaults) is
 * not used; the files are loaded again and prepared anew.
 */
const STAMP = `restfn ${RESTFN_VERSION} prepared 1`;

interface PreparedFile {
  readonly kind: FileKind;
  readonly name: string;
  readonly path: string;
  readonly file: string;
  readonly text: string;
  readonly data: unknown;
  readonly definition: unknown;
}

interface Prepared {
  readonly stamp: string;
  readonly root: string;
  readonly name: string;
  readonly settings: PreparedFile | null;
  readonly files: readonly PreparedFile[];
  readonly scripts: Solution['scripts'];
  readonly diagnostics: readonly Diagnostic[];
}

/** The solution as JSON text (its files' texts, data and checked definitions, its findings). */
export function prepareSolution(solution: Solution): string {
  const file = (f: SourceFile): PreparedFile => ({
    kind: f.kind,
    name: f.name,
    path: f.path,
    file: f.yaml.file,
    text: f.yaml.text,
    data: f.data,
    definition: f.definition,
  });
  const prepared: Prepared = {
    stamp: STAMP,
    root: solution.root,
    name: solution.name,
    settings: solution.settings ? file(solution.settings) : null,
    files: solution.files.map(file),
    scripts: solution.scripts,
    diagnostics: solution.diagnostics,
  };
  return JSON.stringify(prepared);
}

/**
 * The solution `prepareSolution` wrote, or undefined when the text is not one this restfn made
 * (another version's, or damaged): the caller loads the files instead.
 */
export function revivePrepared(text: string): Solution | undefined {
  let prepared: Prepared;
  try {
    prepared = JSON.parse(text) as Prepared;
  } catch {
    return undefined;
  }
  if (prepared?.stamp !== STAMP || !Array.isArray(prepared.files)) return undefined;
  const revive = <K extends FileKind>(f: PreparedFile): SourceFile<K> => ({
    kind: f.kind as K,
    name: f.name,
    path: f.path,
    yaml: new YamlFile(f.file, f.text, { lazy: true }),
    data: f.data,
    definition: (f.definition ?? undefined) as SourceFile<K>['definition'],
  });
  const files = prepared.files.map((f) => revive<'function' | 'datasource' | 'action'>(f));
  const functions = new Map<string, SourceFile<'function'>>();
  for (const f of files)
    if (f.kind === 'function' && !functions.has(f.name)) functions.set(f.name, f as SourceFile<'function'>);
  return {
    root: prepared.root,
    name: prepared.name,
    settings: prepared.settings ? revive<'solution'>(prepared.settings) : undefined,
    files,
    functions,
    scripts: prepared.scripts,
    diagnostics: prepared.diagnostics,
  };
}
