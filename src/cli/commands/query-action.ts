import { inputsRead } from '../../definition/datasource-reads.js';
import { entitiesOf } from '../../definition/schema/datasource.js';
import { loadSolution, type Solution, type SourceFile } from '../../definition/solution.js';
import { didYouMean } from '../../definition/suggest.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { UsageError } from '../../errors/restfn-error.js';
import { QueryError } from '../../local/errors.js';
import { runQuery } from '../../local/queries.js';
import { rewriteShorthand } from '../../local/sql-shorthand.js';
import { LocalStore } from '../../local/store.js';
import { syncOrder } from '../../runtime/datasource-dependencies.js';
import { InputRequiredError } from '../../runtime/errors.js';
import { warn } from '../output.js';
import { printFiltered } from '../output-filter.js';
import { parseParameters } from '../parameters.js';
import { cliRuntime } from '../runtime.js';
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
  if (file) return printDatasource(solution, file, options);
  const store = openReadOnlyStore(solution.root, options.db);
  try {
    refuseUnknownTables(input, store, datasources as Array<SourceFile<'datasource'>>);
    // Typed SQL speaks the datasources' dialect too ('$.field', "text"): a query copied out of a
    // datasource runs here as it does there.
    const rows = runQuery(store, rewriteShorthand(input).sql, {});
    await printFiltered(rows, options);
  } catch (error) {
    // SQL typed on the command line is the user's (exit 2); a datasource's query is a definition's (exit 3).
    if (error instanceof QueryError) throw new UsageError(error.message, 'QUERY_INVALID');
    throw error;
  } finally {
    store.close();
  }
}

/**
 * A datasource as a screen shows it now, synced nothing (the runtime's `readDatasource`, what
 * `@ctx.datasources.<name>` reads in an action): a local one its query over the local tables
 * (read-only), a static one its data, a REST one its functions' rows from a throwaway database;
 * the datasources it reads first. `--input` gives the inputs a screen would open it with.
 */
async function printDatasource(
  solution: Solution,
  file: SourceFile<'datasource'>,
  options: QueryOptions,
): Promise<void> {
  const inputs = parseParameters(options.input ?? [], undefined, '--input');
  const order = syncOrder(solution, [file.name]).map((name) => datasourceFile(solution, name));
  for (const each of order) {
    if (!each.definition)
      throw new DefinitionError(`datasource '${each.name}' is invalid; run 'restfn validate'`);
  }
  // Only local datasources read the device's tables: a static or REST one runs before any sync.
  const local = order.some(
    (d) =>
      d.definition?.type === 'datasource.sqlite' && d.definition.options.provider !== 'DATA_PROVIDER_REST',
  );
  const store = local
    ? openReadOnlyStore(solution.root, options.db)
    : new LocalStore(':memory:', { confined: true });
  try {
    const runtime = await cliRuntime(solution, undefined, options);
    try {
      const { value } = await runtime.readDatasource(file.name, {
        context: { inputs, jig: { inputs } },
        store,
      });
      await printFiltered(value, options);
    } catch (error) {
      if (!(error instanceof InputRequiredError)) throw error;
      const give = error.inputs.map((i) => `--input ${i}=VALUE`).join(' ');
      throw new UsageError(
        `${error.datasource} reads input ${error.inputs.join(', ')}, not given: give it with ${give}`,
        'INPUT_REQUIRED',
      );
    } finally {
      await runtime.close();
    }
  } finally {
    store.close();
  }
  // An input not given reads as nothing: rows filtered by it come back empty, which looks like no data.
  const missing = [...new Set(order.flatMap((d) => inputsRead(d)))].filter((i) => !Object.hasOwn(inputs, i));
  if (missing.length > 0)
    warn(
      `${file.name} reads input ${missing.join(', ')}, not given: its rows are as without it (${missing.map((i) => `--input ${i}=VALUE`).join(' ')})`,
    );
}

function datasourceFile(solution: Solution, name: string): SourceFile<'datasource'> {
  return solution.files.find((f) => f.kind === 'datasource' && f.name === name) as SourceFile<'datasource'>;
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
