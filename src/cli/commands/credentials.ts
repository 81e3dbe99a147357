import { type Command, Option } from 'commander';
import { DEFAULT_REDIRECT } from '../../auth/login-defaults.js';
import { formatOption } from '../output.js';

/** `--server [url]`: manage the platform's credentials of the solution instead of the local ones. */
export interface RemoteOptions {
  server?: string | true;
  token?: string;
  /** The solution's name on the platform (default: the local solution's). */
  name?: string;
}

/** `restfn login` without KEY: the platform's own sign-in. */
interface PlatformLoginFlags {
  withToken?: boolean;
  user?: string;
  status?: boolean;
}

export interface SetOptions extends RemoteOptions {
  kind: 'secret' | 'basic' | 'bearer' | 'oauth';
  solution?: string;
  username?: string;
  tokenUrl?: string;
  authorizeUrl?: string;
  issuer?: string;
  clientId?: string;
  scope: string[];
  grant: 'authorization_code' | 'client_credentials';
  redirectUri?: string;
  public?: boolean;
  origin: string[];
}

const remote = (command: Command) =>
  command
    .option('--server [url]', "the platform's credentials of this solution (url default: env RESTFN_SERVER)")
    .option('--token <token>', 'API token for --server (default: env RESTFN_TOKEN)')
    .option('--name <solution>', "with --server: the solution's name there (default: the local solution's)");

export function registerCredentials(program: Command): void {
  const credentials = program
    .command('credentials')
    .description("manage the solution's credentials (stored encrypted; values are never shown again)");

  remote(credentials.command('set'))
    .description(
      'store a credential; secret values are read from standard input or a hidden prompt, never from arguments',
    )
    .argument('<key>', "credential key, as named by the parameters' value")
    .addOption(
      new Option('-k, --kind <kind>', 'credential kind')
        .choices(['secret', 'basic', 'bearer', 'oauth'])
        .makeOptionMandatory(),
    )
    .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
    .option('--username <name>', 'basic: the username (the password is read like a secret)')
    .option('--token-url <url>', 'oauth: token endpoint')
    .option('--authorize-url <url>', 'oauth: authorization endpoint (authorization code flow)')
    .option('--issuer <url>', "oauth: the server's issuer identifier (default: the token URL's origin)")
    .option('--client-id <id>', 'oauth: client id')
    .option(
      '--scope <scope>',
      'oauth: a scope to request (repeatable)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .addOption(
      new Option('--grant <type>', 'oauth: grant type')
        .choices(['authorization_code', 'client_credentials'])
        .default('authorization_code'),
    )
    .option('--redirect-uri <uri>', `oauth: loopback redirect for login (default ${DEFAULT_REDIRECT})`)
    .option('--public', 'oauth: a public client (no client secret; PKCE only)')
    .option(
      '--origin <url>',
      'where the credential may be sent: scheme://host[:port] (repeatable; --server default: the origins of the published functions that name it)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .action(async (key: string, options: SetOptions) => {
      const { setCredential } = await import('./credentials-action.js');
      await setCredential(key, options);
    });

  remote(
    credentials
      .command('list')
      .description('list credential keys and kinds (never their values)')
      .option('-s, --solution <dir>', 'solution folder')
      .addOption(formatOption()),
  ).action(async (options: RemoteOptions & { solution?: string; format?: string }) => {
    const { listCredentials } = await import('./credentials-action.js');
    await listCredentials(options);
  });

  remote(
    credentials
      .command('delete')
      .description('delete a credential and its tokens')
      .argument('<key>')
      .option('-s, --solution <dir>', 'solution folder'),
  ).action(async (key: string, options: RemoteOptions & { solution?: string }) => {
    const { deleteCredential } = await import('./credentials-action.js');
    await deleteCredential(key, options);
  });

  remote(
    program
      .command('connect')
      .description(
        'connect your own account to an OAuth credential the platform calls with as each user: prints the address to open in a browser (needs --server)',
      )
      .argument('<key>', 'OAuth credential key (authorization code grant)')
      .option('-s, --solution <dir>', 'solution folder'),
  ).action(async (key: string, options: RemoteOptions & { solution?: string }) => {
    const { connect } = await import('./credentials-action.js');
    await connect(key, options);
  });

  remote(
    program
      .command('login')
      .description(
        'without KEY: sign in to the platform (--server URL) and keep its token for later commands; with KEY: log in to an OAuth credential: prints the URL to open, then waits for the redirect (--server: its configuration from the platform, for useLocalCall functions)',
      )
      .argument('[key]', 'OAuth credential key (none: sign in to the platform itself)')
      .option('-s, --solution <dir>', 'solution folder')
      .option('--with-token', 'no KEY: read an API token from standard input instead of signing in')
      .option(
        '--user <name>',
        'no KEY: the user to sign in as (the password is read from standard input or a hidden prompt)',
      )
      .option(
        '--status',
        'list the platforms this device is logged in to, and whether each token still works',
      ),
  ).action(
    async (key: string | undefined, options: RemoteOptions & PlatformLoginFlags & { solution?: string }) =>
      (await import('./platform-login.js')).login(key, options),
  );
}
