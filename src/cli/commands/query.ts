import type { Command } from 'commander';
import { addOutputFilter, type OutputFilter } from '../output-filter.js';
import { collect } from '../parameters.js';
import { addUserOptions, type UserOptions } from '../user-options.js';

export interface QueryOptions extends UserOptions, OutputFilter {
  solution?: string;
  db?: string;
  input?: string[];
}

export function registerQuery(program: Command): void {
  addOutputFilter(
    addUserOptions(
      program
        .command('query')
        .description(
          "print a datasource's rows as a screen sees them now, or rows of the local database for a SQL statement, as JSON (the local tables read-only)",
        )
        .argument('<sql-or-datasource>', 'SQL (tables written [name]) or the name of a datasource')
        .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
        .option('--db <file>', 'local database file (default: <solution>/.restfn/local.db)')
        .option(
          '--input <name=value>',
          'an input the datasource reads as @ctx.inputs.<name> and @ctx.jig.inputs.<name> (repeatable)',
          collect,
          [],
        ),
    ),
  ).action(async (input: string, options: QueryOptions) => {
    const { printQuery } = await import('./query-action.js');
    await printQuery(input, options);
  });
}
