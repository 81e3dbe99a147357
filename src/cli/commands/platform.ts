import { type Command, Option } from 'commander';
import { formatOption } from '../output.js';

/** How the CLI reaches the platform: --server/--token, else RESTFN_SERVER/RESTFN_TOKEN. */
export interface ServerOptions {
  server?: string | true;
  token?: string;
  format?: string;
}

/** The --server and --token options, for every command that talks to the platform. */
export function serverOptions(command: Command): Command {
  return command
    .option('--server [url]', "the platform (default: env RESTFN_SERVER, else the last 'restfn login')")
    .option('--token <token>', 'API token (default: env RESTFN_TOKEN, else the login of that platform)');
}

/** serverOptions, and --format for a command whose answer is data (a list, a record, a report). */
const reporting = (command: Command) => serverOptions(command).addOption(formatOption());

export function registerPlatform(program: Command): void {
  reporting(
    program
      .command('publish')
      .description('validate the solution, then upload it to the platform as a new version')
      .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)'),
  ).action(async (options: ServerOptions & { solution?: string }) =>
    (await import('./platform-action.js')).publish(options),
  );

  program
    .command('logout')
    .description(
      "forget this device's login to a platform (default: the default one); a token 'restfn login' made is revoked there too",
    )
    .option('--server [url]', 'the platform to log out of (default: the last login)')
    .action(async (options: { server?: string | true }) =>
      (await import('./platform-login.js')).platformLogout(options),
    );

  const users = program.command('users').description("the platform's users (admins only)");
  reporting(
    users
      .command('add')
      .description(
        'add a user; with --with-password the password is read from standard input or a hidden prompt',
      )
      .argument('<name>')
      .addOption(
        new Option('--role <role>', 'admin, author or user')
          .choices(['admin', 'author', 'user'])
          .makeOptionMandatory(),
      )
      .option(
        '--solution <name>',
        'a solution the user belongs to (repeatable)',
        (v: string, p: string[]) => [...p, v],
        [],
      )
      .option('--with-password', 'set a password for the console (read, never from arguments)'),
  ).action(
    async (
      name: string,
      options: ServerOptions & { role: string; solution: string[]; withPassword?: boolean },
    ) => (await import('./platform-action.js')).addUser(name, options),
  );
  reporting(users.command('list').description('list the users')).action(async (options: ServerOptions) =>
    (await import('./platform-action.js')).listUsers(options),
  );
  reporting(
    users
      .command('set')
      .description("change a user's role, solutions (replacing them) or password")
      .argument('<name>')
      .addOption(new Option('--role <role>', 'admin, author or user').choices(['admin', 'author', 'user']))
      .option(
        '--solution <name>',
        'a solution the user belongs to (repeatable; replaces the list)',
        (v: string, p: string[] | undefined) => [...(p ?? []), v],
      )
      .option(
        '--with-password',
        'set a new password (read, never from arguments; signs the user out of the console)',
      ),
  ).action(
    async (
      name: string,
      options: ServerOptions & { role?: string; solution?: string[]; withPassword?: boolean },
    ) => (await import('./platform-action.js')).setUser(name, options),
  );
  serverOptions(
    users.command('remove').description('remove a user with their tokens').argument('<name>'),
  ).action(async (name: string, options: ServerOptions) =>
    (await import('./platform-action.js')).removeUser(name, options),
  );

  const tokens = program.command('tokens').description('API tokens for the platform');
  serverOptions(
    tokens
      .command('create')
      .description("create an API token for a user (yours, or anyone's as an admin); printed once")
      .argument('<user>')
      .option('--name <label>', 'what the token is for', 'cli'),
  ).action(async (user: string, options: ServerOptions & { name: string }) =>
    (await import('./platform-action.js')).createToken(user, options),
  );
  reporting(
    tokens.command('list').description("a user's tokens (never their values)").argument('<user>'),
  ).action(async (user: string, options: ServerOptions) =>
    (await import('./platform-action.js')).listTokens(user, options),
  );
  serverOptions(
    tokens.command('revoke').description('revoke a token').argument('<user>').argument('<id>'),
  ).action(async (user: string, id: string, options: ServerOptions) =>
    (await import('./platform-action.js')).revokeToken(user, id, options),
  );

  const targets = program
    .command('targets')
    .description(
      'the private hosts each solution may call on the platform (admins only; changes apply at once, no restart)',
    );
  reporting(
    targets.command('list').description('list the allowed targets: --allow-target ones and added ones'),
  ).action(async (options: ServerOptions) => (await import('./platform-action.js')).listTargets(options));
  reporting(
    targets
      .command('add')
      .description(
        'let SOLUTION call HOST (a host name or IP, with :port for one port only), kept across restarts',
      )
      .argument('<solution>')
      .argument('<host>'),
  ).action(async (solution: string, host: string, options: ServerOptions) =>
    (await import('./platform-action.js')).addTarget(solution, host, options),
  );
  serverOptions(
    targets
      .command('remove')
      .description('stop SOLUTION calling HOST (one added with targets add)')
      .argument('<solution>')
      .argument('<host>'),
  ).action(async (solution: string, host: string, options: ServerOptions) =>
    (await import('./platform-action.js')).removeTarget(solution, host, options),
  );
}
