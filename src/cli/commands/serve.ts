import { type Command, Option } from 'commander';

export interface ServeCliOptions {
  host: string;
  port: string;
  data: string;
  database?: string;
  allowPrivateTargets?: boolean;
  allowTarget: string[];
  masterKeyFile?: string;
  logLevel: string;
  logFormat: string;
  rateLimit: string;
  trustProxy: string[];
  publicUrl?: string;
  maxScriptMs: string;
  maxExpressionMs: string;
  maxMemoryMb: string;
  maxExecutionMs: string;
  maxConcurrentPerSolution: string;
  maxRetries: string;
  minRetryDelayMs: string;
  maxRequestsPerExecution: string;
  maxWorkers?: string;
  solutionCacheMb: string;
  metricsPort?: string;
  maxSolutionMb: string;
  keepVersions: string;
  auditRetentionDays?: string;
  auditMaxRows?: string;
  metricsLabels?: string;
  maxAnswerMb: string;
  maxHeldMb: string;
  maxHeldMbPerUser: string;
  headersTimeoutMs: string;
  maxConnections?: string;
  maxConnectionsPerAddress: string;
  appOrigin: string[];
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
    .addOption(
      new Option(
        '--log-format <format>',
        'text (readable lines) or json (JSON lines); default: text on a terminal',
      )
        .choices(['auto', 'text', 'json'])
        .default('auto'),
    )
    .option('--rate-limit <n>', 'requests per minute per user (per address without a token)', '1200')
    .option(
      '--public-url <url>',
      'where browsers and OAuth providers reach this platform (connect flows return to <url>/api/v1/oauth/callback; default: the address it listens on)',
    )
    .option(
      '--app-origin <origin>',
      'let pages of this origin (https://app.example) call the API with a user token: CORS (repeatable; env RESTFN_APP_ORIGINS)',
      collect,
      [],
    )
    .option(
      '--trust-proxy <cidr>',
      "believe X-Forwarded-For/-Proto from this proxy's address or range (repeatable)",
      collect,
      [],
    )
    // The ceilings over what solutions set (defaults: DEFAULT_CEILINGS, repeated for --help).
    .option('--max-script-ms <ms>', "ceiling of a solution's scripts.timeoutMs", '1000')
    .option('--max-expression-ms <ms>', "ceiling of a solution's expressions.timeoutMs", '2000')
    .option('--max-memory-mb <mb>', 'memory of one execution (its scripts and expressions)', '128')
    .option('--max-execution-ms <ms>', 'longest execution, retries and waits included', '60000')
    .option(
      '--max-concurrent-per-solution <n>',
      'executions of one solution at once (past it: 429 with Retry-After)',
      '64',
    )
    .option('--max-retries <n>', "ceiling of an error handler's retry.maxRetries", '10')
    .option('--min-retry-delay-ms <ms>', "floor of an error handler's retry.delay", '100')
    .option(
      '--max-requests-per-execution <n>',
      'requests one execution sends, retries and redirects counted (past it: REQUEST_LIMIT)',
      '100',
    )
    .option(
      '--max-answer-mb <mb>',
      'largest answer (an output, a /call response, a page); past it: ANSWER_TOO_LARGE',
      '50',
    )
    .option(
      '--max-held-mb <mb>',
      'large request bodies in flight and answers not yet read by their clients, in all (past it: 503 with Retry-After)',
      '256',
    )
    .option('--max-held-mb-per-user <mb>', 'the same, of one user (past it: 429 with Retry-After)', '64')
    .option('--headers-timeout-ms <ms>', "the time a client has to send a request's headers", '20000')
    .option('--max-connections <n>', 'connections at once (default: half the open-file limit, at most 10000)')
    .option(
      '--max-connections-per-address <n>',
      'connections at once from one address (--trust-proxy addresses excepted)',
      '256',
    )
    .option(
      '--max-workers <n>',
      'worker threads that run solutions, one solution at a time each (default: 4 per core, at least 8)',
    )
    .option(
      '--solution-cache-mb <mb>',
      "megabytes the workers' prepared solutions may take together (the least recently used are made again when needed)",
      '256',
    )
    .option(
      '--max-solution-mb <mb>',
      "megabytes a solution's kept versions may take (past it a publish is refused: SOLUTION_QUOTA)",
      '256',
    )
    .option(
      '--keep-versions <n>',
      "the newest versions of a solution kept; older ones' files are removed unless in use (0: keep all)",
      '50',
    )
    .option(
      '--audit-retention-days <days>',
      'audit entries older than this are removed, in small batches off the request path (0: keep them; default 90; env RESTFN_AUDIT_RETENTION_DAYS)',
    )
    .option(
      '--audit-max-rows <n>',
      'only the newest n audit entries are kept (0: any number; default 0; env RESTFN_AUDIT_MAX_ROWS)',
    )
    .option(
      '--metrics-port <port>',
      'also serve GET /metrics on this port of 127.0.0.1, without a token (for a Prometheus on this host)',
    )
    .action(async (options: ServeCliOptions) => (await import('./serve-action.js')).serve(options));
  serve
    .command('reset-admin')
    .description("a new API token for an admin (the first admin's token was lost); printed once on stdout")
    .option('--data <dir>', 'where the platform keeps its state (default: .restfn-server)')
    .option('--database <url>', 'the PostgreSQL state (env RESTFN_DATABASE_URL)')
    .option('--user <name>', 'which admin (default: the first one)')
    .action(async (_: unknown, command: Command) =>
      (await import('./serve-action.js')).resetAdmin(
        command.optsWithGlobals() as ServeCliOptions & { user?: string },
      ),
    );
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
