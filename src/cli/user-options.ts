import type { Command } from 'commander';

export interface UserOptions {
  userId?: string;
  userEmail?: string;
  userName?: string;
}

/** `--user-*`: who `@ctx.user` is when restfn runs outside the platform (over solution.yaml's `settings.user`). */
export function addUserOptions(command: Command): Command {
  return command
    .option('--user-id <id>', '@ctx.user.id for expressions (default: settings.user in solution.yaml)')
    .option('--user-email <email>', '@ctx.user.email for expressions')
    .option('--user-name <name>', '@ctx.user.displayName for expressions');
}

export function userFrom(options: UserOptions): Record<string, string> {
  const user: Record<string, string> = {};
  if (options.userId !== undefined) user.id = options.userId;
  if (options.userEmail !== undefined) user.email = options.userEmail;
  if (options.userName !== undefined) user.displayName = options.userName;
  return user;
}
