import { actionSteps, namedActions } from '../definition/action-steps.js';
import { datasourcesRead } from '../definition/datasource-reads.js';
import { isAlwaysJsonata, walk } from '../definition/rules/expressions.js';
import { entitiesOf } from '../definition/schema/datasource.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import { freeNames } from '../expression/names.js';
import { expressionSource, isExpression } from '../expression/source.js';
import { MODULE_SEPARATOR } from '../expression/translate.js';
import { offsetAt, rangeFrom } from './position.js';
import type { TextRange } from './range.js';

/** What a name in a solution's files names. A script function is named `module.function`. */
export type NameKind = 'function' | 'action' | 'datasource' | 'script' | 'entity';

/** One place a file names a function, an action, a datasource or a script function. */
export interface NameSite {
  readonly kind: NameKind;
  readonly name: string;
  /** Where the value naming it is in the file's data. */
  readonly path: PropertyPath;
  /** The name's range in the file (inside an expression for datasources and scripts). */
  readonly range: TextRange;
  /** The place defines what it names: a datasource's entity (its local table). */
  readonly declares?: boolean;
}

/**
 * Every place a file names another part of the solution, read from its parsed YAML (a mention in a
 * comment or in an expression's string literal names nothing): the functions and actions the rules
 * UNKNOWN_FUNCTION and UNKNOWN_ACTION check (so a file that fails the schema names none of them),
 * the datasources its expressions read (`@ctx.datasources.x`), and the script functions they call.
 */
export function namesIn(file: SourceFile): readonly NameSite[] {
  let sites = known.get(file);
  if (!sites) {
    sites = findNames(file);
    known.set(file, sites);
  }
  return sites;
}

/**
 * Names by file, kept while the file's parse is: an edit parses the file anew (a new SourceFile),
 * so a search of the whole solution reads again only what changed.
 */
const known = new WeakMap<SourceFile, readonly NameSite[]>();

function findNames(file: SourceFile): NameSite[] {
  const sites: NameSite[] = [];
  const plain = (kind: NameKind, name: string | undefined, path: PropertyPath) => {
    if (typeof name !== 'string' || name === '') return;
    const at = file.yaml.locate(path);
    // A quoted scalar's name starts after its quote.
    const quoted = /^["']/.test(
      file.yaml.text.slice(offsetAt(file.yaml.text, { line: at.line - 1, character: at.col - 1 })),
    )
      ? 1
      : 0;
    sites.push({ kind, name, path, range: rangeFrom({ line: at.line, col: at.col + quoted }, name.length) });
  };
  for (const { name, path } of functionNames(file)) plain('function', name, path);
  for (const { name, path } of entityNames(file)) {
    const before = sites.length;
    plain('entity', name, path);
    if (file.kind === 'datasource' && sites.length > before)
      sites[before] = { ...sites[before]!, declares: true };
  }
  if (file.kind === 'action' && file.definition)
    for (const { name, at } of namedActions((file as SourceFile<'action'>).definition!))
      plain('action', name, at);

  for (const read of datasourcesRead(file)) {
    const value = valueAt(file.data, read.path);
    if (typeof value !== 'string') continue;
    const written = /^@(?:ctx)?\.datasources\.(`?)/.exec(value.slice(read.index));
    if (!written) continue;
    const at = file.yaml.locateInValue(read.path, read.index + written[0].length);
    sites.push({
      kind: 'datasource',
      name: read.name,
      path: read.path,
      range: rangeFrom(at, read.name.length),
    });
  }
  walk(file.data, [], (value, path) => {
    if (!value.includes('$')) return;
    const source = expressionSource(value, file.kind === 'function' && isAlwaysJsonata(path));
    if (!source) return;
    for (const free of freeNames(source.body)) {
      if (!free.name.includes(MODULE_SEPARATOR)) continue;
      const at = file.yaml.locateInValue(path, source.offset + free.index);
      // Written `$module.fn`, read by JSONata as one name with the separator in place of the dot.
      sites.push({
        kind: 'script',
        name: free.name.replace(MODULE_SEPARATOR, '.'),
        path: [...path],
        range: rangeFrom(at, free.name.length + 1),
      });
    }
  });
  return sites;
}

/** The functions a file names: a datasource's entities, an action's steps, a function's guard. */
function functionNames(file: SourceFile): Array<{ name: string | undefined; path: PropertyPath }> {
  const out: Array<{ name: string | undefined; path: PropertyPath }> = [];
  if (file.kind === 'datasource' && file.definition) {
    for (const [i, entry] of entitiesOf((file as SourceFile<'datasource'>).definition!).entries())
      if (typeof entry !== 'string')
        out.push({ name: entry.function, path: ['options', 'entities', i, 'function'] });
  } else if (file.kind === 'action' && file.definition) {
    for (const { step, at } of actionSteps((file as SourceFile<'action'>).definition!)) {
      if (step.type === 'action.sync-entities') {
        for (const [i, entry] of step.options.entities.entries())
          if (typeof entry !== 'string')
            out.push({ name: entry.function, path: [...at, 'options', 'entities', i, 'function'] });
      } else if (
        step.type === 'action.execute-entity' ||
        step.type === 'action.execute-entities' ||
        step.type === 'action.submit-form'
      )
        out.push({ name: step.options.function, path: [...at, 'options', 'function'] });
    }
  } else if (file.kind === 'function' && file.definition) {
    out.push({
      name: (file as SourceFile<'function'>).definition!.guard?.function,
      path: ['guard', 'function'],
    });
  }
  return out;
}

/**
 * The local tables (entities) a file names: a datasource's entities (which define them), an
 * action's `entity` and sync entries, a function's operations' `table` (error handlers' and the
 * guard's too). A table written as an expression names none.
 */
function entityNames(file: SourceFile): Array<{ name: string | undefined; path: PropertyPath }> {
  const out: Array<{ name: string | undefined; path: PropertyPath }> = [];
  const entries = (list: ReadonlyArray<string | { entity: string }>, at: PropertyPath) => {
    for (const [i, entry] of list.entries())
      out.push(
        typeof entry === 'string'
          ? { name: entry, path: [...at, i] }
          : { name: entry.entity, path: [...at, i, 'entity'] },
      );
  };
  if (file.kind === 'datasource' && file.definition) {
    entries(entitiesOf((file as SourceFile<'datasource'>).definition!), ['options', 'entities']);
  } else if (file.kind === 'action' && file.definition) {
    for (const { step, at } of actionSteps((file as SourceFile<'action'>).definition!)) {
      if (step.type === 'action.sync-entities')
        entries(step.options.entities, [...at, 'options', 'entities']);
      const entity = (step.options as { entity?: unknown } | undefined)?.entity;
      if (typeof entity === 'string') out.push({ name: entity, path: [...at, 'options', 'entity'] });
    }
  } else if (file.kind === 'function' && file.definition) {
    const d = (file as SourceFile<'function'>).definition!;
    const operations = (list: readonly object[] | undefined, at: PropertyPath) => {
      for (const [i, op] of (list ?? []).entries())
        if ('table' in op && typeof op.table === 'string' && !isExpression(op.table))
          out.push({ name: op.table, path: [...at, i, 'table'] });
    };
    operations(d.operations, ['operations']);
    for (const [i, handler] of (d.error ?? []).entries())
      operations(handler.operations, ['error', i, 'operations']);
    operations(d.guard?.operations, ['guard', 'operations']);
  }
  return out;
}

/** Every place the solution's files (solution.yaml included) name something, by file. */
export function solutionNames(solution: Solution): Array<{ file: SourceFile; sites: readonly NameSite[] }> {
  const files: SourceFile[] = [...(solution.settings ? [solution.settings] : []), ...solution.files];
  return files.map((file) => ({ file, sites: namesIn(file) }));
}

/** The name a file gives what it defines, by kind: a function's, an action's, a datasource's. */
export function definedKind(file: SourceFile): NameKind | undefined {
  return file.kind === 'solution' ? undefined : file.kind;
}

function valueAt(data: unknown, path: PropertyPath): unknown {
  let at = data;
  for (const step of path)
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[step] : undefined;
  return at;
}
