import type { Command } from 'commander';

export interface QueryOptions {
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
    .action(async (input: string, options: QueryOptions) => {
      const { printQuery } = await import('./query-action.js');
      await printQuery(input, options);
    });
}
