import type { Command } from 'commander';
import { formatOption } from '../output.js';
import { collect } from '../parameters.js';
import { addUserOptions, type UserOptions } from '../user-options.js';

export interface SyncOptions extends UserOptions {
  solution?: string;
  db?: string;
  commitPerEntity?: boolean;
  allowPartial?: boolean;
  format?: string;
  verbose?: boolean;
  input?: string[];
}

export function registerSync(program: Command): void {
  addUserOptions(
    program
      .command('sync')
      .description(
        'run datasources: fill their local tables from their functions (all datasources by default)',
      )
      .argument('[datasources...]', 'datasource names')
      .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
      .option('--db <file>', 'local database file (default: <solution>/.restfn/local.db)')
      .option(
        '--input <name=value>',
        'an input the datasources read as @ctx.inputs.<name> and @ctx.jig.inputs.<name> (repeatable)',
        collect,
        [],
      )
      .option('-v, --verbose', 'a progress line per page, and requests and responses (credentials masked)')
      .option(
        '--commit-per-entity',
        "commit each entity as soon as it is synced (later entities' queries see it; a failure keeps the entities before it)",
      )
      .option(
        '--allow-partial',
        'keep the pages fetched when paging ends early (the page cap, a continuation that advanced nothing, a failed later page), with a warning',
      )
      .addOption(formatOption()),
  ).action(async (names: string[], options: SyncOptions) => {
    const { sync } = await import('./sync-action.js');
    await sync(names, options);
  });
}
