import { expressionSource } from '../expression/source.js';
import { walk } from './rules/expressions.js';
import type { Solution, SourceFile } from './solution.js';
import type { PropertyPath } from './yaml-file.js';

/** One `@ctx.datasources.<name>` an expression of a datasource file reads, and where. */
export interface DatasourceRead {
  readonly name: string;
  readonly path: PropertyPath;
  /** Where in the value's text the read starts. */
  readonly index: number;
}

// `@ctx.datasources.name`, `@.datasources.name` or a backquoted step (`` `task-lists` ``). A step
// is a name up to the next character that cannot be part of one; `-` can (conventions.md: names
// with hyphens), so `task-lists` is one name.
const READ = /@(?:ctx)?\.datasources\.(?:`([^`]+)`|([A-Za-z_$][\w$-]*))/g;

/**
 * The other datasources a datasource's expressions read (`functionParameters`, `queryParameters`,
 * a static datasource's `data`): what a sync runs first. Reads inside string literals are text.
 */
export function datasourcesRead(file: SourceFile): DatasourceRead[] {
  const found: DatasourceRead[] = [];
  walk(file.data, [], (value, path) => {
    const source = expressionSource(value, false);
    if (!source) return;
    for (const read of readsIn(source.body))
      found.push({ name: read.name, path: [...path], index: source.offset + read.index });
  });
  return found;
}

/** The datasource names one expression body reads (`@ctx.datasources.<name>`), outside its string literals. */
export function datasourceNamesIn(body: string): string[] {
  return [...new Set(readsIn(body).map((r) => r.name))];
}

function readsIn(body: string): Array<{ name: string; index: number }> {
  if (!body.includes('datasources')) return [];
  const literal = literals(body);
  const found: Array<{ name: string; index: number }> = [];
  for (const match of body.matchAll(READ)) {
    if (literal(match.index)) continue;
    found.push({ name: (match[1] ?? match[2])!.replace(/-+$/, ''), index: match.index });
  }
  return found;
}

// `@ctx.inputs.x`, `@ctx.jig.inputs.x` (and `@.` for `@ctx.`): the inputs a screen opens with.
const INPUT = /@(?:ctx)?\.(?:jig\.)?inputs\.(?:`([^`]+)`|([A-Za-z_$][\w$-]*))/g;

/**
 * The inputs a value reads (`@ctx.inputs.x`, `@ctx.jig.inputs.x`), outside its string literals; a
 * value that is no expression reads none.
 */
export function inputNamesIn(raw: unknown): string[] {
  const source = typeof raw === 'string' ? expressionSource(raw, false) : undefined;
  if (!source?.body.includes('inputs')) return [];
  const literal = literals(source.body);
  const names = new Set<string>();
  for (const match of source.body.matchAll(INPUT)) {
    if (!literal(match.index)) names.add((match[1] ?? match[2])!.replace(/-+$/, ''));
  }
  return [...names];
}

/** Every input a datasource file's expressions read (`functionParameters`, `queryParameters`, `data`). */
export function inputsRead(file: SourceFile): string[] {
  const names = new Set<string>();
  walk(file.data, [], (value) => {
    for (const name of inputNamesIn(value)) names.add(name);
  });
  return [...names];
}

/** Whether a character of an expression is inside a '...' or "..." string literal. */
function literals(body: string): (index: number) => boolean {
  const inside = new Uint8Array(body.length);
  let quote: string | undefined;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quote) {
      inside[i] = 1;
      if (c === '\\') inside[++i] = 1;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
  }
  return (index) => inside[index] === 1;
}

/** The datasource files of a solution by name. */
function datasourceFiles(solution: Solution): Map<string, SourceFile<'datasource'>> {
  return new Map(
    solution.files.filter((f) => f.kind === 'datasource').map((f) => [f.name, f as SourceFile<'datasource'>]),
  );
}

export type SyncPlan =
  | { readonly order: string[]; readonly cycle?: undefined }
  | {
      readonly order?: undefined;
      readonly cycle: { readonly names: string[]; readonly at: DatasourceRead; readonly file: SourceFile };
    };

/**
 * The order a sync of `wanted` runs datasources in: each one after the datasources it reads (those
 * are run too, when not wanted themselves), otherwise as asked. A read of a name the solution has no
 * datasource for orders nothing (it reads nothing). A cycle is returned, with the read that closes it.
 */
export function syncPlan(solution: Solution, wanted: readonly string[]): SyncPlan {
  const files = datasourceFiles(solution);
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, trail: string[]): SyncPlan['cycle'] => {
    state.set(name, 'visiting');
    const file = files.get(name);
    for (const read of file ? datasourcesRead(file) : []) {
      if (!files.has(read.name)) continue;
      if (state.get(read.name) === 'visiting') {
        const route = [...trail, name];
        return { names: [...route.slice(route.indexOf(read.name)), read.name], at: read, file: file! };
      }
      if (!state.has(read.name)) {
        const cycle = visit(read.name, [...trail, name]);
        if (cycle) return cycle;
      }
    }
    state.set(name, 'done');
    order.push(name);
    return undefined;
  };
  for (const name of wanted) {
    if (state.has(name)) continue;
    const cycle = visit(name, []);
    if (cycle) return { cycle };
  }
  return { order };
}

/** The datasources that some of `names` read. */
export function readNames(solution: Solution, names: readonly string[]): Set<string> {
  const files = datasourceFiles(solution);
  const read = new Set<string>();
  for (const name of names) {
    const file = files.get(name);
    for (const r of file ? datasourcesRead(file) : []) read.add(r.name);
  }
  return read;
}
