import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { suggestFileName } from '../definition/naming.js';
import { EXTENSION, KIND_FOLDERS, type Solution } from '../definition/solution.js';
import { closest } from '../definition/suggest.js';
import { ImportError } from './errors.js';
import type { ImportedDescription, ImportedOperation } from './model.js';
import { assignNames, operationLabel } from './names.js';
import { type Origin, readOrigin, renderFunction, withoutDate } from './render.js';

const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** What an import does with one function file. */
export type FileStatus = 'new' | 'unchanged' | 'moved' | 'changed' | 'conflict';

export interface PlannedFile {
  readonly operation: ImportedOperation;
  readonly name: string;
  /** Absolute path: the existing function's file when there is one, else `functions/NAME.platform`. */
  readonly path: string;
  readonly text: string;
  /**
   * `new`: no function of that name; `unchanged`: the file is what this import writes (but for the
   * date); `moved`: the same but for the description's path (it moved; rewritten without --force);
   * `changed`: imported from the same source, now different; `conflict`: a function of that
   * name that was not imported from this source.
   */
  readonly status: FileStatus;
  /** What differs, for `changed` and `conflict` (`url`, `parameters (+a, -b, ~c)`). */
  readonly changes: readonly string[];
  /** Why the name is not the operation's own (another operation has it too), for the plan. */
  readonly because?: string;
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
  /** Operations left out, named as `--only` names them. */
  readonly exclude?: readonly string[];
  /** Where the description was before it moved (`--from`): files recorded with it are this import's. */
  readonly from?: string;
  readonly prefix: string;
  readonly date: string;
}

export { operationLabel };

export function planImport(
  description: ImportedDescription,
  solution: Solution,
  options: PlanOptions,
): ImportPlan {
  const described = [description.formatName, description.title].filter(Boolean).join(', ');
  // Files imported from this description: by their recorded source, or (moved or renamed since) by
  // `--from` or the same description and operation.
  const labels = new Set(description.operations.map(operationLabel));
  const imported = [...solution.functions.values()]
    .map((f) => ({ f, origin: readOrigin(f.yaml.text) }))
    .filter(
      ({ origin }) =>
        origin !== undefined &&
        (origin.source === options.source ||
          (options.from !== undefined && origin.source === options.from) ||
          (origin.description === described && labels.has(origin.operation ?? ''))),
    );
  // A name once written stays, unless this import asks for another prefix.
  const previous = new Map(
    imported
      .filter(({ f }) => options.prefix === '' || f.name.startsWith(`${options.prefix}-`))
      .map(({ f, origin }) => [origin!.operation ?? '', f.name]),
  );
  const names = assignNames(description.operations, options.prefix, previous);
  const named = description.operations.map((operation, i) => ({ operation, ...names[i]! }));
  const selected = select(named, options.only, options.prefix, false);
  const excluded = new Set(select(named, options.exclude ?? [], options.prefix, true));
  const chosen = selected.filter((n) => !excluded.has(n));
  if (chosen.length === 0) {
    throw new ImportError(
      'IMPORT_ONLY_UNMATCHED',
      `--only and --exclude leave none of the description's ${named.length} operations: leave out fewer`,
    );
  }
  if (options.from !== undefined && !imported.some(({ origin }) => origin?.source === options.from)) {
    throw new ImportError(
      'IMPORT_ONLY_UNMATCHED',
      `--from ${options.from}: no function of this solution was imported from it (their first lines record their source): check the path`,
    );
  }
  const ours = new Set(imported.map(({ f }) => f.name));
  const origin = (op: ImportedOperation): Origin => ({
    source: options.source,
    description: described,
    operation: operationLabel(op),
    date: options.date,
  });
  const files = chosen.map(({ operation, name, because }): PlannedFile => {
    const text = renderFunction(operation, origin(operation));
    const existing = solution.functions.get(name);
    const naming = because === undefined ? {} : { because };
    if (!existing) {
      return {
        operation,
        name,
        path: join(solution.root, KIND_FOLDERS.function, `${name}${EXTENSION}`),
        text,
        status: 'new',
        changes: [],
        ...naming,
      };
    }
    const before = existing.yaml.text;
    const own = ours.has(name);
    if (own && withoutDate(before) === withoutDate(text)) {
      return { operation, name, path: existing.path, text, status: 'unchanged', changes: [], ...naming };
    }
    if (own && withoutSource(withoutDate(before)) === withoutSource(withoutDate(text))) {
      const was = readOrigin(before)?.source ?? '';
      return {
        operation,
        name,
        path: existing.path,
        text,
        status: 'moved',
        changes: [`source (was ${was})`],
        ...naming,
      };
    }
    return {
      operation,
      name,
      path: existing.path,
      text,
      status: own ? 'changed' : 'conflict',
      changes: differences(existing.data, parse(text)),
      ...naming,
    };
  });
  // Gone: imported from this description, and its operation is no longer in it (whatever --only,
  // --exclude or --prefix this import was given).
  const gone = imported
    .filter(({ origin }) => !labels.has(origin!.operation ?? ''))
    .map(({ f, origin }) => ({ name: f.name, path: f.path, operation: origin?.operation ?? '' }));
  return { files, gone };
}

/** The operations `--only` names: by tag or folder, operationId (or request name), route, or function name. */
function select<T extends { operation: ImportedOperation; name: string }>(
  named: T[],
  only: readonly string[],
  prefix: string,
  excluding: boolean,
): T[] {
  const wanted = only
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (wanted.length === 0) return excluding ? [] : named;
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
      `${excluding ? '--exclude' : '--only'} ${described.join(', ')} matches nothing in the description; ${known}`,
    );
  }
  return named.filter((n) => wanted.some((value) => matches(n, value)));
}

function withoutSource(text: string): string {
  return text.replace(/^# source: .*\n/m, '');
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
