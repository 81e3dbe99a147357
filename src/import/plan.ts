import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { suggestFileName } from '../definition/naming.js';
import { EXTENSION, KIND_FOLDERS, type Solution } from '../definition/solution.js';
import { closest } from '../definition/suggest.js';
import { ImportError } from './errors.js';
import type { ImportedDescription, ImportedOperation } from './model.js';
import { type Origin, readOrigin, renderFunction, withoutDate } from './render.js';

const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** What an import does with one function file. */
export type FileStatus = 'new' | 'unchanged' | 'changed' | 'conflict';

export interface PlannedFile {
  readonly operation: ImportedOperation;
  readonly name: string;
  /** Absolute path: the existing function's file when there is one, else `functions/NAME.platform`. */
  readonly path: string;
  readonly text: string;
  /**
   * `new`: no function of that name; `unchanged`: the file is what this import writes (but for the
   * date); `changed`: imported from the same source, now different; `conflict`: a function of that
   * name that was not imported from this source.
   */
  readonly status: FileStatus;
  /** What differs, for `changed` and `conflict` (`url`, `parameters (+a, -b, ~c)`). */
  readonly changes: readonly string[];
}

export interface ImportPlan {
  readonly files: readonly PlannedFile[];
  /** Functions imported from this source earlier whose operation the description no longer has. */
  readonly gone: ReadonlyArray<{ readonly name: string; readonly path: string; readonly operation: string }>;
}

export interface PlanOptions {
  /** The description's path as recorded in the files (relative to the solution, `/`-separated). */
  readonly source: string;
  readonly only: readonly string[];
  readonly prefix: string;
  readonly date: string;
}

/** The function name of an operation: its operationId (or name, or method and path) through the naming rule, prefixed. */
export function functionName(op: ImportedOperation, prefix: string): string {
  const base = suggestFileName(op.nameFrom) || suggestFileName(op.nameFallback) || 'operation';
  return prefix === '' || base.startsWith(`${prefix}-`) ? base : `${prefix}-${base}`;
}

/** `getPetById (GET /pet/{petId})`, or the route alone when it is the operation's only name. */
export function operationLabel(op: ImportedOperation): string {
  return op.id === op.route ? op.route : `${op.id} (${op.route})`;
}

export function planImport(
  description: ImportedDescription,
  solution: Solution,
  options: PlanOptions,
): ImportPlan {
  const named = description.operations.map((operation) => ({
    operation,
    name: functionName(operation, options.prefix),
  }));
  const selected = select(named, options.only, options.prefix);
  const byName = new Map<string, ImportedOperation>();
  for (const { operation, name } of selected) {
    const other = byName.get(name);
    if (other) {
      throw new ImportError(
        'IMPORT_NAME_COLLISION',
        `the operations ${operationLabel(other)} and ${operationLabel(operation)} both become the function '${name}'; give one of them another operationId (or name) in the description, or import them separately with --only and different --prefix values`,
      );
    }
    byName.set(name, operation);
  }
  const origin = (op: ImportedOperation): Origin => ({
    source: options.source,
    description: [description.formatName, description.title].filter(Boolean).join(', '),
    operation: operationLabel(op),
    date: options.date,
  });
  const files = selected.map(({ operation, name }): PlannedFile => {
    const text = renderFunction(operation, origin(operation));
    const existing = solution.functions.get(name);
    if (!existing) {
      return {
        operation,
        name,
        path: join(solution.root, KIND_FOLDERS.function, `${name}${EXTENSION}`),
        text,
        status: 'new',
        changes: [],
      };
    }
    const before = existing.yaml.text;
    const ours = readOrigin(before)?.source === options.source;
    if (ours && withoutDate(before) === withoutDate(text)) {
      return { operation, name, path: existing.path, text, status: 'unchanged', changes: [] };
    }
    return {
      operation,
      name,
      path: existing.path,
      text,
      status: ours ? 'changed' : 'conflict',
      changes: differences(existing.data, parse(text)),
    };
  });
  const all = new Set(named.map((n) => n.name));
  const gone = [...solution.functions.values()]
    .map((f) => ({ f, origin: readOrigin(f.yaml.text) }))
    .filter(({ f, origin }) => origin?.source === options.source && !all.has(f.name))
    .map(({ f, origin }) => ({ name: f.name, path: f.path, operation: origin?.operation ?? '' }));
  return { files, gone };
}

/** The operations `--only` names: by tag or folder, operationId (or request name), route, or function name. */
function select<T extends { operation: ImportedOperation; name: string }>(
  named: T[],
  only: readonly string[],
  prefix: string,
): T[] {
  const wanted = only
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (wanted.length === 0) return named;
  const matches = (n: T, value: string) => {
    const v = value.toLowerCase();
    const asName = suggestFileName(value);
    return (
      n.operation.tags.some((t) => t.toLowerCase() === v) ||
      n.operation.id.toLowerCase() === v ||
      n.operation.route.toLowerCase() === v ||
      (asName !== '' && (n.name === asName || n.name === `${prefix}-${asName}`))
    );
  };
  const unmatched = wanted.filter((value) => !named.some((n) => matches(n, value)));
  if (unmatched.length > 0) {
    const tags = [...new Set(named.flatMap((n) => n.operation.tags))];
    const candidates = [...tags, ...named.map((n) => n.operation.id), ...named.map((n) => n.name)];
    const described = unmatched.map((value) => {
      const near = closest(value, candidates);
      return near ? `'${value}' (did you mean '${near}'?)` : `'${value}'`;
    });
    const known = [
      tags.length > 0 ? `tags or folders: ${tags.join(', ')}` : 'no tags or folders',
      `operations: ${named
        .slice(0, 20)
        .map((n) => n.operation.id)
        .join(', ')}${named.length > 20 ? ', ...' : ''}`,
    ].join('; ');
    throw new ImportError(
      'IMPORT_ONLY_UNMATCHED',
      `--only ${described.join(', ')} matches nothing in the description; ${known}`,
    );
  }
  return named.filter((n) => wanted.some((value) => matches(n, value)));
}

/** Which top-level keys differ (for parameters, which ones were added, removed or changed). */
function differences(before: unknown, after: unknown): string[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const found: string[] = [];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[key]) === JSON.stringify(b[key])) continue;
    if (key === 'parameters') {
      const pa = (a[key] ?? {}) as Record<string, unknown>;
      const pb = (b[key] ?? {}) as Record<string, unknown>;
      const names = [...new Set([...Object.keys(pa), ...Object.keys(pb)])]
        .filter((n) => JSON.stringify(pa[n]) !== JSON.stringify(pb[n]))
        .map((n) => (!(n in pa) ? `+${n}` : !(n in pb) ? `-${n}` : `~${n}`));
      found.push(`parameters (${names.join(', ')})`);
    } else found.push(key);
  }
  return found.length > 0 ? found : ['comments only'];
}

/** The description's path as the files record it: relative to the solution folder, with `/`. */
export function recordedSource(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}
