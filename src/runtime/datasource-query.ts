import type { SqliteDatasource } from '../definition/schema/datasource.js';
import type { SourceFile } from '../definition/solution.js';
import { QueryError } from '../local/errors.js';
import { type QueryStore, runQuery } from '../local/queries.js';
import { type RewrittenSql, rewriteShorthand } from '../local/sql-shorthand.js';

/** The tables a datasource names, as written. */
export function tablesOf(options: SqliteDatasource['options']): string[] {
  return options.entities.map((e) => (typeof e === 'string' ? e : e.entity));
}

/**
 * A datasource's query as SQLite runs it: the `'$.path'` shorthand and double-quoted strings
 * rewritten (sql-shorthand.ts), unless `rewriteQuery: false`.
 */
export function datasourceSql(options: SqliteDatasource['options']): RewrittenSql | undefined {
  if (options.query === undefined) return undefined;
  if (options.rewriteQuery === false) return { sql: options.query, sourceOffset: (o) => o, changed: false };
  return rewriteShorthand(options.query, tablesOf(options));
}

/**
 * Runs a datasource's query over `store`. A statement SQLite rejects is QUERY_FAILED at the line
 * and column of the author's text that SQLite names (`near "x"`, `no such column: x`), or at the
 * query's start, even when restfn ran it rewritten.
 */
export function runDatasourceQuery(
  store: QueryStore,
  file: SourceFile<'datasource'>,
  options: SqliteDatasource['options'],
  parameters: Readonly<Record<string, unknown>>,
): Array<Record<string, unknown>> {
  const rewritten = datasourceSql(options)!;
  try {
    return runQuery(store, rewritten.sql, parameters) as Array<Record<string, unknown>>;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    const at = file.yaml.locateInValue(
      ['options', 'query'],
      rewritten.sourceOffset(offending(error, rewritten.sql)),
    );
    const note = rewritten.changed
      ? " (restfn ran it with its '$.path' shorthand and double-quoted strings rewritten)"
      : '';
    throw new QueryError(
      `${at.file}:${at.line}:${at.col}: datasource '${file.name}': ${error.message}${note}`,
      {
        cause: error,
      },
    );
  }
}

/** Where in `sql` the text SQLite's message names is (its first occurrence), else 0. */
function offending(error: QueryError, sql: string): number {
  const message = String((error.cause as Error | undefined)?.message ?? error.message);
  const named =
    /near "((?:[^"]|"")*)"/.exec(message)?.[1]?.replace(/""/g, '"') ??
    /no such (?:column|table|function): ([^\s,]+)/.exec(message)?.[1] ??
    /ambiguous column name: ([^\s,]+)/.exec(message)?.[1];
  if (named === undefined) return 0;
  const bare = named.replace(/^main\./, '');
  const at = sql.indexOf(bare);
  if (at !== -1) return at;
  // `no such column: c.x` when the author wrote `c . x`: the name after the dot.
  const last = bare.split('.').at(-1)!;
  const found = sql.indexOf(last);
  return found === -1 ? 0 : found;
}

/**
 * Each row's `jsonProperties` columns parsed from JSON text (`image` or `'$.image'` name the
 * column `image`); text that is not JSON stays text, as the platform shows it.
 */
export function parseJsonProperties(
  rows: Array<Record<string, unknown>>,
  properties: readonly string[] | undefined,
): void {
  if (!properties || properties.length === 0) return;
  const columns = properties.map((p) => p.replace(/^\$\./, ''));
  for (const row of rows) {
    for (const column of columns) {
      const text = row[column];
      if (typeof text !== 'string') continue;
      try {
        row[column] = JSON.parse(text);
      } catch {
        // Not JSON: the value is what the column holds.
      }
    }
  }
}
