import type { Solution, SourceFile } from '../../definition/solution.js';
import { type ScriptExport, scriptExports } from './script-exports.js';

/** What completion needs to know of the whole solution, gathered once per assembled solution. */
export interface SolutionIndex {
  /** Local table names, each with the files that define or write it ("datasource customers"). */
  readonly entities: ReadonlyMap<string, readonly string[]>;
  /** Global actions (actions/*.platform) by name. */
  readonly actions: ReadonlyMap<string, SourceFile<'action'>>;
  readonly datasources: ReadonlyMap<string, SourceFile<'datasource'>>;
  /** Script modules by name: their exported functions. */
  readonly scripts: ReadonlyMap<string, readonly ScriptExport[]>;
}

// The service assembles a new Solution on the first request after each edit: keyed by it, the
// index lives exactly as long as the texts it was made from.
const INDEXES = new WeakMap<Solution, SolutionIndex>();

export function solutionIndex(solution: Solution): SolutionIndex {
  let index = INDEXES.get(solution);
  if (!index) {
    index = build(solution);
    INDEXES.set(solution, index);
  }
  return index;
}

function build(solution: Solution): SolutionIndex {
  const entities = new Map<string, string[]>();
  const actions = new Map<string, SourceFile<'action'>>();
  const datasources = new Map<string, SourceFile<'datasource'>>();
  for (const file of solution.files) {
    if (file.kind === 'action' && !actions.has(file.name))
      actions.set(file.name, file as SourceFile<'action'>);
    if (file.kind === 'datasource' && !datasources.has(file.name))
      datasources.set(file.name, file as SourceFile<'datasource'>);
    const from = `${file.kind} ${file.name}`;
    for (const name of tablesOf(file)) {
      const list = entities.get(name) ?? [];
      if (!list.includes(from)) list.push(from);
      entities.set(name, list);
    }
  }
  const scripts = new Map(solution.scripts.map((s) => [s.name, scriptExports(s.source)]));
  return { entities, actions, datasources, scripts };
}

// A file's tables, kept while its parsed text is: after an edit only the edited file is walked again.
const TABLES = new WeakMap<SourceFile, readonly string[]>();

/** The tables a file names: entities (datasources, actions), operations' tables (functions). */
function tablesOf(file: SourceFile): readonly string[] {
  let found = TABLES.get(file);
  if (!found) {
    const names = new Set<string>();
    const add = (name: unknown) => {
      if (typeof name === 'string' && name !== '' && !name.startsWith('=')) names.add(name);
    };
    walk(file.data, (key, value) => {
      if (file.kind === 'function' ? key === 'table' : key === 'entity') add(value);
      if ((key === 'entities' || key === 'tables') && Array.isArray(value)) for (const e of value) add(e);
    });
    found = [...names];
    TABLES.set(file, found);
  }
  return found;
}

/** Calls `visit` with every key and value of plain data, depth first. */
function walk(data: unknown, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(data)) for (const item of data) walk(item, visit);
  else if (data && typeof data === 'object')
    for (const [key, value] of Object.entries(data)) {
      visit(key, value);
      walk(value, visit);
    }
}
