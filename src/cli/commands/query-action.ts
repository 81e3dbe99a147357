import { entitiesOf } from '../../definition/schema/datasource.js';
import { loadSolution, type SourceFile } from '../../definition/solution.js';
import { didYouMean } from '../../definition/suggest.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { UsageError } from '../../errors/restfn-error.js';
import { QueryError } from '../../local/errors.js';
import { type QueryStore, runQuery } from '../../local/queries.js';
import { rewriteShorthand } from '../../local/sql-shorthand.js';
import { createContext } from '../../runtime/context.js';
import { parseJsonProperties, runDatasourceQuery } from '../../runtime/datasource-query.js';
import { fieldsOf } from '../../runtime/field.js';
import { normalizeOptions } from '../../runtime/options.js';
import { solutionDir } from '../solution-dir.js';
import { openReadOnlyStore } from '../store-path.js';
import type { QueryOptions } from './query.js';

/** `restfn query` (loaded when the command runs; its options are in query.ts). */
export async function printQuery(input: string, options: QueryOptions): Promise<void> {
  const solution = loadSolution(solutionDir(options.solution));
  const file = solution.files.find((f) => f.kind === 'datasource' && f.name === input) as
    | SourceFile<'datasource'>
    | undefined;
  const datasources = solution.files.filter((f) => f.kind === 'datasource');
  // A bare name that is no datasource is a typo of one, not SQL (which SQLite would call a syntax error).
  if (!file && /^[A-Za-z0-9._-]+$/.test(input.trim())) {
    throw new UsageError(
      `no datasource '${input}'${didYouMean(
        input,
        datasources.map((d) => d.name),
      )}: give a datasource's name, or SQL such as "select count(*) n from [table]"`,
      'DATASOURCE_NOT_FOUND',
    );
  }
  const sql = input;
  let query: ((store: QueryStore) => unknown) | undefined;
  const parameters: Record<string, unknown> = {};
  if (file) {
    if (!file.definition)
      throw new DefinitionError(`datasource '${input}' is invalid; run 'restfn validate'`);
    const definition = file.definition;
    if (definition.type !== 'datasource.sqlite' || definition.options.query === undefined)
      throw new UsageError(`datasource '${input}' has no query`);
    const { queryParameters = {} } = definition.options;
    // The datasource's parameters, evaluated as a sync would (over the solution's context).
    const settings = normalizeOptions(solution);
    const ctx = createContext(solution, 'query', settings, {});
    const field = fieldsOf(file, ctx, { limits: settings.expressions, functions: {} });
    for (const [name, raw] of Object.entries(queryParameters)) {
      parameters[name] = await field(['options', 'queryParameters', name], raw, ctx);
    }
    // As a sync runs it: the shorthand rewritten, errors at the author's line, jsonProperties
    // parsed, isDocument's one row.
    query = (store) => {
      const rows = runDatasourceQuery(store, file, definition.options, parameters);
      parseJsonProperties(rows, definition.options.jsonProperties);
      return definition.options.isDocument ? (rows[0] ?? null) : rows;
    };
  }
  const store = openReadOnlyStore(solution.root, options.db);
  try {
    if (!file) refuseUnknownTables(sql, store, datasources as Array<SourceFile<'datasource'>>);
    // Typed SQL speaks the datasources' dialect too ('$.field', "text"): a query copied out of a
    // datasource runs here as it does there.
    const rows = query ? query(store) : runQuery(store, rewriteShorthand(sql).sql, parameters);
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  } catch (error) {
    // SQL typed on the command line is the user's (exit 2); a datasource's query is a definition's (exit 3).
    if (error instanceof QueryError && !file) throw new UsageError(error.message, 'QUERY_INVALID');
    throw error;
  } finally {
    store.close();
  }
}

/**
 * A table the solution has no datasource for, and the database does not hold, would read as empty
 * (a never-synced table does): in SQL typed here it is a typo, said with the closest table.
 */
function refuseUnknownTables(
  sql: string,
  store: { readonly db: { prepare(sql: string): { all(): unknown[] } } },
  datasources: ReadonlyArray<SourceFile<'datasource'>>,
): void {
  const stored = (
    store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
  ).map((r) => r.name);
  const entities = datasources.flatMap((d) =>
    (d.definition ? entitiesOf(d.definition) : []).map((e) => (typeof e === 'string' ? e : e.entity)),
  );
  const known = [...new Set([...entities, ...entities.map((e) => `${e}_error`), ...stored])].filter(
    (t) => !t.startsWith('sqlite_'),
  );
  for (const match of sql.matchAll(/\b(?:FROM|JOIN)\s+\[([^\]]+)\]/gi)) {
    const table = match[1]!;
    if (known.includes(table)) continue;
    throw new UsageError(
      `no table '${table}' in this solution${didYouMean(table, known)}: ${known.length > 0 ? `its tables are ${known.map((t) => `[${t}]`).join(', ')}` : 'it has no tables yet (run restfn sync)'}`,
      'QUERY_INVALID',
    );
  }
}
