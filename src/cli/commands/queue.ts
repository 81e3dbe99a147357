import type { Command } from 'commander';
import { formatOption } from '../output.js';

export interface QueueCliOptions {
  solution?: string;
  server?: string | true;
  token?: string;
  db?: string;
  format?: string;
  verbose?: boolean;
  /** `queue retry --rebuild` */
  rebuild?: boolean;
}

const common = (command: Command) =>
  command
    .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
    .option('--db <file>', 'local database file (default: <solution>/.restfn/local.db)');

export function registerQueue(program: Command): void {
  const queue = program
    .command('queue')
    .description("the offline command queue: actions' remote calls waiting to be sent (list by default)");
  common(
    queue.command('list', { isDefault: true }).description('list the queued commands, first to go first'),
  )
    .addOption(formatOption())
    // `restfn queue foo` lands here (list is the default): say which subcommands there are.
    .allowExcessArguments(true)
    .action(async (options: QueueCliOptions, command: Command) => {
      const [unknown] = command.args;
      if (unknown !== undefined) {
        const { UsageError } = await import('../../errors/restfn-error.js');
        throw new UsageError(`unknown queue command '${unknown}': use list, push, retry, delete or clear`);
      }
      return (await import('./queue-action.js')).list(options);
    });
  common(queue.command('push').description('send the queued commands now, waiting ones included'))
    .option('-v, --verbose', 'trace requests and responses on stderr (credentials masked)')
    .option('--server [url]', 'the platform makes the remote calls (url default: env RESTFN_SERVER)')
    .option('--token <token>', 'API token for --server (default: env RESTFN_TOKEN)')
    .addOption(formatOption())
    .action(async (options: QueueCliOptions) => (await import('./queue-action.js')).push(options));
  for (const [verb, description] of [
    ['retry', 'queue failed or waiting commands again, to go at the next push'],
    ['delete', 'drop commands without sending them (their error rows go too)'],
    ['clear', 'drop commands and every later command for the same record'],
  ] as const) {
    const command = common(queue.command(verb).description(description).argument('<ids...>', 'command ids'));
    if (verb === 'retry')
      command.option(
        '--rebuild',
        'build each command again from the current action and function files (same id, record and place in the queue): after fixing a definition, so that the fix is sent rather than what the older one built',
      );
    command.action(async (ids: string[], options: QueueCliOptions) =>
      (await import('./queue-action.js')).change(verb, ids, options),
    );
  }
}
