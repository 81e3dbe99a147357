import type { SourceFile } from '../../definition/solution.js';
import { objectOr } from './plain-data.js';

/**
 * The fields of a datasource's rows, where the file says them: a SQLite datasource's result
 * columns (its query's select list: `AS` names, the last step of a `'$.a.b'` shorthand, plain
 * column names; `*` says nothing), a static one's keys of its rows. Read from the text, cheaply:
 * a select list this does not understand gives no fields, never a wrong one.
 */
export function datasourceColumns(file: SourceFile<'datasource'>): string[] {
  const options = objectOr(objectOr(file.data).options);
  if (Array.isArray(options.data)) {
    const keys = new Set<string>();
    for (const row of options.data) for (const key of Object.keys(objectOr(row))) keys.add(key);
    return [...keys];
  }
  return typeof options.query === 'string' ? selectColumns(options.query) : [];
}

export function selectColumns(sql: string): string[] {
  const head = /^\s*select\s+(?:distinct\s+)?/i.exec(sql);
  if (!head) return [];
  // the first ` from ` after the select list, found by a scan (a lazy match before `\s+from\s` is quadratic)
  const rest = sql.slice(head[0].length);
  const from = /\sfrom\s/i.exec(rest);
  const list = from ? rest.slice(0, from.index).trimEnd() : undefined;
  if (!list) return [];
  const columns: string[] = [];
  for (const part of splitTopLevel(list)) {
    const item = part.trim();
    const name =
      /\bas\s+["`[]?([\w-]+)["`\]]?$/i.exec(item)?.[1] ??
      /'\$\.(?:[\w-]+\.)*([\w-]+)'$/.exec(item)?.[1] ??
      /^(?:[\w-]+\.)?["`[]?([A-Za-z_][\w-]*)["`\]]?$/.exec(item)?.[1];
    if (name && !columns.includes(name)) columns.push(name);
  }
  return columns;
}

/** The parts of a select list between its top-level commas (not those in parentheses or quotes). */
function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start));
  return parts;
}
