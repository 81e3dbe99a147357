import { loadSolution, type SourceFile } from '../../definition/solution.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { UsageError } from '../../errors/restfn-error.js';
import { QueryError } from '../../local/errors.js';
import { runQuery } from '../../local/queries.js';
import { createContext } from '../../runtime/context.js';
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
  let sql = input;
  const parameters: Record<string, unknown> = {};
  if (file) {
    if (!file.definition)
      throw new DefinitionError(`datasource '${input}' is invalid; run 'restfn validate'`);
    const { query, queryParameters = {} } = file.definition.options;
    if (query === undefined) throw new UsageError(`datasource '${input}' has no query`);
    sql = query;
    // The datasource's parameters, evaluated as a sync would (over the solution's context).
    const settings = normalizeOptions(solution);
    const ctx = createContext(solution, 'query', settings.user, {});
    const field = fieldsOf(file, ctx, { limits: settings.expressions, functions: {} });
    for (const [name, raw] of Object.entries(queryParameters)) {
      parameters[name] = await field(['options', 'queryParameters', name], raw, ctx);
    }
  }
  const store = openReadOnlyStore(solution.root, options.db);
  try {
    process.stdout.write(`${JSON.stringify(runQuery(store, sql, parameters), null, 2)}\n`);
  } catch (error) {
    // SQL typed on the command line is the user's (exit 2); a datasource's query is a definition's (exit 3).
    if (error instanceof QueryError && !file) throw new UsageError(error.message, 'QUERY_INVALID');
    throw error;
  } finally {
    store.close();
  }
}
