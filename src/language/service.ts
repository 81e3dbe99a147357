import { join, relative } from 'node:path';
import type { Diagnostic } from '../definition/diagnostic.js';
import type { FileKind } from '../definition/schema/index.js';
import { baseName, parseFile, type Solution, type SourceFile } from '../definition/solution.js';
import { validateSolution } from '../definition/validate.js';
import { type CompletionEntry, type CredentialKey, completions } from './completion/index.js';
import { dependants } from './dependants.js';
import { type DocumentKind, documentKind } from './document-kind.js';

interface Loaded {
  readonly source: SourceFile;
  /** Findings of loading it (YAML, schema). */
  readonly diagnostics: readonly Diagnostic[];
}

const KIND_ORDER: Readonly<Record<FileKind, number>> = { solution: 0, function: 1, datasource: 2, action: 3 };

/**
 * The language service (issue 39): a solution's files, as texts by absolute path, and their edits
 * in; findings and completions out. No I/O of its own: the server (src/cli/lsp/) reads the disk
 * and speaks LSP. Findings are `restfn validate`'s, computed by the same code over the same
 * solution, with paths shown relative to the solution's folder (as `restfn validate` run there).
 */
export class LanguageService {
  private readonly loaded = new Map<string, Loaded>();
  private readonly scripts = new Map<string, string>();
  private solutionCache: Solution | undefined;
  private credentialKeys: () => readonly CredentialKey[] = () => [];

  constructor(
    readonly root: string,
    texts: ReadonlyMap<string, string> = new Map(),
  ) {
    for (const [path, text] of texts) this.setText(path, text);
  }

  kindOf(path: string): DocumentKind | undefined {
    return documentKind(this.root, path);
  }

  /**
   * A file's new text (opened, edited, created). Returns the paths whose findings may have
   * changed: the file and its dependants (dependants.ts); empty when the file is not the solution's.
   */
  setText(path: string, text: string): Set<string> {
    const kind = this.kindOf(path);
    if (!kind) return new Set();
    const before = this.nameOf(path);
    if (kind === 'script') this.scripts.set(path, text);
    else this.loaded.set(path, parseFile(kind, path, this.display(path), text));
    this.solutionCache = undefined;
    return this.affected(path, kind, before);
  }

  /** A file deleted: its dependants are re-checked (a datasource naming a deleted function). */
  remove(path: string): Set<string> {
    const kind = this.kindOf(path);
    if (!kind) return new Set();
    const before = this.nameOf(path);
    this.loaded.delete(path);
    this.scripts.delete(path);
    this.solutionCache = undefined;
    const affected = this.affected(path, kind, before);
    affected.delete(path);
    return affected;
  }

  /** A definition file as parsed from its current text (undefined for scripts and other files). */
  source(path: string): SourceFile | undefined {
    return this.loaded.get(path)?.source;
  }

  /** The solution's scripts (`scripts/expressions/*.js`): absolute path to current text. */
  scriptTexts(): ReadonlyMap<string, string> {
    return this.scripts;
  }

  text(path: string): string | undefined {
    return this.loaded.get(path)?.source.yaml.text ?? this.scripts.get(path);
  }

  /** The solution as `loadSolution` would read it from these texts. */
  solution(): Solution {
    this.solutionCache ??= this.assemble();
    return this.solutionCache;
  }

  /**
   * `restfn validate`'s findings for these files (absolute paths; every definition file when
   * none are given), by path; a file without findings maps to an empty list. Only these files are
   * checked by the rules, the others are read for reference.
   */
  async diagnostics(paths?: Iterable<string>): Promise<Map<string, Diagnostic[]>> {
    const solution = this.solution();
    const wanted = paths ? [...paths].filter((p) => this.loaded.has(p)) : [...this.loaded.keys()];
    const displays = new Map(wanted.map((p) => [this.display(p), p]));
    const only = new Set(displays.keys());
    // Script findings (SCRIPT_LOAD) name the script's file: reported with every check.
    for (const path of this.scripts.keys()) displays.set(this.display(path), path);
    const result = await validateSolution(solution, { only: new Set(displays.keys()), check: only });
    const byPath = new Map<string, Diagnostic[]>([...displays.values()].map((p) => [p, []]));
    for (const d of result.diagnostics) byPath.get(displays.get(d.file) ?? '')?.push(d);
    return byPath;
  }

  /** What may be typed at a position (0-based line and UTF-16 character) of a definition file. */
  completions(path: string, line: number, character: number): CompletionEntry[] {
    const loaded = this.loaded.get(path);
    if (!loaded) return [];
    return completions(loaded.source, line, character, this.solution(), this.credentialKeys);
  }

  /**
   * Where completion finds the stored credentials' keys (never their values): the server reads
   * the local store and the platform; the service, which does no I/O, only asks this source.
   */
  setCredentialKeys(source: () => readonly CredentialKey[]): void {
    this.credentialKeys = source;
  }

  /** The stored credentials' keys as the source gives them now (keys and kinds, never values). */
  knownCredentialKeys(): readonly CredentialKey[] {
    return this.credentialKeys();
  }

  private display(path: string): string {
    return relative(this.root, path);
  }

  private nameOf(path: string): string | undefined {
    return this.loaded.get(path)?.source.name ?? (this.scripts.has(path) ? baseName(path) : undefined);
  }

  private affected(path: string, kind: DocumentKind, before: string | undefined): Set<string> {
    const names = new Set([before, this.nameOf(path)].filter((n): n is string => n !== undefined));
    const sources = [...this.loaded.values()].map((l) => l.source);
    return dependants(path, names, sources, kind === 'solution' || kind === 'script');
  }

  private assemble(): Solution {
    const all = [...this.loaded.values()];
    // loadSolution's order: solution.yaml, then functions, datasources, actions, each by path.
    all.sort(
      (a, b) =>
        KIND_ORDER[a.source.kind] - KIND_ORDER[b.source.kind] ||
        (a.source.path < b.source.path ? -1 : a.source.path > b.source.path ? 1 : 0),
    );
    const settings = all.find((l) => l.source.kind === 'solution')?.source as
      | SourceFile<'solution'>
      | undefined;
    const files = all.filter((l) => l.source.kind !== 'solution').map((l) => l.source) as Array<
      SourceFile<'function' | 'datasource' | 'action'>
    >;
    const functions = new Map<string, SourceFile<'function'>>();
    for (const file of files)
      if (file.kind === 'function' && !functions.has(file.name))
        functions.set(file.name, file as SourceFile<'function'>);
    const scripts = [...this.scripts.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, source]) => ({
        name: baseName(path).replace(/\.js$/, ''),
        file: this.display(path),
        source,
      }));
    return {
      root: this.root,
      name: settings?.definition?.name ?? baseName(this.root),
      settings,
      files,
      functions,
      scripts,
      diagnostics: all.flatMap((l) => l.diagnostics),
    };
  }
}

/** The absolute path of a file named as the service's findings name it. */
export function pathOf(root: string, display: string): string {
  return join(root, display);
}
