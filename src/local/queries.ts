import type { SqlDatabase } from './database.js';
import { sqlValue } from './stage.js';
import { guarded, prepareChecked } from './statement-checks.js';

/** What a query needs of a store: the local store, or the read-only one `restfn query` opens. */
export interface QueryStore {
  readonly db: SqlDatabase;
  readonly file: string;
  /** Makes `[name]` readable when the table does not exist yet (created empty). */
  ensureTable(name: string): string;
  /** When true, only statements that read are run (`refuseWrites`). */
  readonly readOnly?: boolean;
  /** When true, statements that change the connection rather than the tables are refused (`refuseConnectionChanges`). */
  readonly confined?: boolean;
}

export type ResultType = 'records' | 'record' | 'scalar';

/** Tables a statement names as `[name]` after FROM, JOIN, INTO or UPDATE (not `[0]` inside JSON paths). */
const TABLE_REFERENCE = /\b(?:FROM|JOIN|INTO|UPDATE)\s+\[([^\]]+)\]/gi;

/**
 * Runs one SQL statement over the local tables. `@name` binds a parameter (only the names the
 * statement uses are passed). Tables it reads are created empty when they do not exist yet, so a
 * query before the first sync returns nothing instead of failing. The `data` column and the
 * `jsonColumns` come back parsed.
 */
export function runQuery(
  store: QueryStore,
  statement: string,
  parameters: Readonly<Record<string, unknown>>,
  resultType: ResultType = 'records',
  jsonColumns: readonly string[] = [],
): unknown {
  for (const match of statement.matchAll(TABLE_REFERENCE)) store.ensureTable(match[1]!);
  const prepared = prepareChecked(store, statement);
  const used = new Set([...statement.matchAll(/[@:$]([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
  const bound = Object.fromEntries(
    Object.entries(parameters)
      .filter(([k]) => used.has(k))
      .map(([k, v]) => [k, sqlValue(v)]),
  );
  const parsed = new Set(['data', ...jsonColumns]);
  const parse = (row: Record<string, unknown>) => {
    for (const column of Object.keys(row)) {
      if (parsed.has(column) && typeof row[column] === 'string')
        row[column] = JSON.parse(row[column] as string);
    }
    return row;
  };
  if (!prepared.reader) {
    guarded(store, statement, () => prepared.run(bound));
    return resultType === 'records' ? [] : null;
  }
  if (resultType === 'records')
    return guarded(store, statement, () => prepared.all(bound) as Array<Record<string, unknown>>).map(parse);
  const first = guarded(store, statement, () => prepared.get(bound) as Record<string, unknown> | undefined);
  if (!first) return null;
  if (resultType === 'record') return parse(first);
  const [column] = Object.keys(first);
  return column === undefined ? null : parse(first)[column];
}
