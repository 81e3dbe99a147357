import type { Command } from 'commander';
import { loadSolution } from '../../definition/solution.js';
import { UsageError } from '../../errors/restfn-error.js';
import { runQuery } from '../../local/queries.js';
import { solutionDir } from '../solution-dir.js';
import { openStore } from '../store-path.js';

interface Options {
  solution?: string;
  db?: string;
}

export function registerQuery(program: Command): void {
  program
    .command('query')
    .description("print rows of the local database as JSON: a SQL statement, or a datasource's query")
    .argument('<sql-or-datasource>', 'SQL (tables written [name]) or the name of a datasource')
    .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
    .option('--db <file>', 'local database file (default: <solution>/.restfn/local.db)')
    .action((input: string, options: Options) => {
      const solution = loadSolution(solutionDir(options.solution));
      const datasource = solution.files.find((f) => f.kind === 'datasource' && f.name === input);
      let sql = input;
      if (datasource) {
        const query = (datasource.data as { options?: { query?: unknown } })?.options?.query;
        if (typeof query !== 'string') throw new UsageError(`datasource '${input}' has no query`);
        sql = query;
      }
      const store = openStore(solution.root, options.db);
      try {
        process.stdout.write(`${JSON.stringify(runQuery(store, sql, {}), null, 2)}\n`);
      } catch (error) {
        if ((error as { code?: string }).code?.startsWith('SQLITE_')) {
          throw new UsageError(`the query failed: ${(error as Error).message}`, 'QUERY_FAILED');
        }
        throw error;
      } finally {
        store.close();
      }
    });
}
