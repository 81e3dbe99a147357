import type { Command } from 'commander';
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

interface Options {
  solution?: string;
  db?: string;
}

export function registerQuery(program: Command): void {
  program
    .command('query')
    .description(
      "print rows of the local database as JSON: a SQL statement, or a datasource's query (read-only)",
    )
    .argument('<sql-or-datasource>', 'SQL (tables written [name]) or the name of a datasource')
    .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
    .option('--db <file>', 'local database file (default: <solution>/.restfn/local.db)')
    .action(async (input: string, options: Options) => {
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
        if (error instanceof QueryError && !file) throw new UsageError(error.message, 'QUERY_FAILED');
        throw error;
      } finally {
        store.close();
      }
    });
}
