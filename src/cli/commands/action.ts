import type { Command } from 'commander';
import { addOutputFilter, type OutputFilter } from '../output-filter.js';
import { collect } from '../parameters.js';
import { addUserOptions, type UserOptions } from '../user-options.js';

export interface ActionCliOptions extends UserOptions, OutputFilter {
  context?: string;
  set: string[];
  solution?: string;
  db?: string;
  push: boolean;
  verbose?: boolean;
}

export function registerAction(program: Command): void {
  addOutputFilter(
    addUserOptions(
      program
        .command('action')
        .description(
          'run an action: change the local record and queue the remote call in one step, then push the queue',
        )
        .argument('<name>', 'action name (a file in actions/)')
        .option(
          '--context <json>',
          'what a screen gives the action, as JSON: {"current":{"item":{...}},"components":{"name":{"state":{"value":"x"}}}}',
        )
        .option(
          '-p, --set <path=value>',
          'one context value by dotted path, over --context (repeatable): -p current.item.id=c-7',
          collect,
          [],
        )
        .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
        .option('--db <file>', 'local database file (default: <solution>/.restfn/local.db)')
        .option('--no-push', 'only change the local record and queue the command (as offline)')
        .option('-v, --verbose', 'trace requests and responses on stderr (credentials masked)'),
    ),
  ).action(async (name: string, options: ActionCliOptions) => {
    const { action } = await import('./action-action.js');
    await action(name, options);
  });
}
