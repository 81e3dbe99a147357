import type { Command } from 'commander';
import { addOutputFilter, type OutputFilter } from '../output-filter.js';
import { collect } from '../parameters.js';
import { addUserOptions, type UserOptions } from '../user-options.js';

export interface RunOptions extends UserOptions, OutputFilter {
  param: string[];
  params?: string;
  solution?: string;
  verbose?: boolean;
  db?: string;
}

export function registerRun(program: Command): void {
  addOutputFilter(
    addUserOptions(
      program
        .command('run')
        .description(
          'execute one function: the output as JSON on stdout, diagnostics on stderr (a paged function: its first page, and a note when more follow: restfn sync gets them all)',
        )
        .argument('<name>', 'function name')
        .option('-p, --param <name=value>', 'a parameter value (repeatable)', collect, [])
        .option('--params <json>', 'parameter values as a JSON object (-p values override)')
        .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
        .option('-v, --verbose', 'trace requests and responses on stderr (credentials masked)')
        .option(
          '--db <file>',
          'local database for queries and guards (default: <solution>/.restfn/local.db)',
        ),
    ),
  ).action(async (name: string, options: RunOptions) => {
    const { run } = await import('./run-action.js');
    await run(name, options);
  });
}
