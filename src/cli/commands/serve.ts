import type { Command } from 'commander';

export interface ServeCliOptions {
  host: string;
  port: string;
  data: string;
  database?: string;
  allowPrivateTargets?: boolean;
  allowTarget: string[];
  masterKeyFile?: string;
  logLevel: string;
  rateLimit: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerServe(program: Command): void {
  const serve = program
    .command('serve')
    .description('run the platform: publish solutions, keep their credentials, execute functions for apps')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free one)', '8080')
    .option('--data <dir>', 'where the platform keeps its state', '.restfn-server')
    .option(
      '--database <url>',
      'keep the state in PostgreSQL (postgres://...), shared by several instances (env RESTFN_DATABASE_URL)',
    )
    .option('--allow-private-targets', 'let functions call loopback and private addresses (SSRF guard off)')
    .option(
      '--allow-target <solution=host>',
      'let one solution call one private host or IP (repeatable)',
      collect,
      [],
    )
    .option(
      '--master-key-file <file>',
      'the master key that encrypts credentials, outside --data (default: ~/.config/restfn/platform-master.key; env RESTFN_MASTER_KEY wins)',
    )
    .option('--log-level <level>', 'fatal, error, warn, info, debug or trace', 'info')
    .option('--rate-limit <n>', 'requests per minute per token', '1200')
    .action(async (options: ServeCliOptions) => (await import('./serve-action.js')).serve(options));
  // Takes serve's own --data, --database and --master-key-file (the current key file; the new key replaces it).
  serve
    .command('rotate-key')
    .description('re-encrypt every credential key under a new master key (stop the server first)')
    // Also accepted before `rotate-key`, as serve's own; listed here so that --help shows them.
    .option('--data <dir>', 'where the platform keeps its state (default: .restfn-server)')
    .option('--database <url>', 'the PostgreSQL state (env RESTFN_DATABASE_URL)')
    .option('--master-key-file <file>', 'the current key file; the new key replaces it')
    .action(async (_: unknown, command: Command) =>
      (await import('./serve-action.js')).rotateKey(command.optsWithGlobals() as ServeCliOptions),
    );
}
