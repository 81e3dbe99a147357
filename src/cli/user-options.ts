import type { Command } from 'commander';

export interface UserOptions {
  userId?: string;
  userEmail?: string;
  userName?: string;
  /** `--server [url]`: the platform makes the calls (url default: env RESTFN_SERVER). */
  server?: string | true;
  token?: string;
}

/** `--user-*`: who `@ctx.user` is when restfn runs outside the platform (over solution.yaml's `settings.user`). */
export function addUserOptions(command: Command): Command {
  return command
    .option('--user-id <id>', '@ctx.user.id for expressions (default: settings.user in solution.yaml)')
    .option('--user-email <email>', '@ctx.user.email for expressions')
    .option('--user-name <name>', '@ctx.user.displayName for expressions')
    .option(
      '--server [url]',
      'the platform makes the remote calls with its credentials (url default: env RESTFN_SERVER); useLocalCall functions still call from here',
    )
    .option('--token <token>', 'API token for --server (default: env RESTFN_TOKEN)');
}

export function userFrom(options: UserOptions): Record<string, string> {
  const user: Record<string, string> = {};
  if (options.userId !== undefined) user.id = options.userId;
  if (options.userEmail !== undefined) user.email = options.userEmail;
  if (options.userName !== undefined) user.displayName = options.userName;
  return user;
}
