import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { destination } from 'pino';
import { type Clock, SYSTEM_CLOCK } from '../errors/clock.js';
import { CredentialError } from '../errors/credential-error.js';
import { UsageError } from '../errors/restfn-error.js';
import { privateFolder } from '../local/private-path.js';
import { AllowedTargets } from './allowed-targets.js';
import { buildApp, METRICS_TYPE } from './app.js';
import { AuditLog } from './audit-log.js';
import {
  AuditRetention,
  type AuditRetentionSettings,
  DEFAULT_AUDIT_MAX_ROWS,
  DEFAULT_AUDIT_RETENTION_DAYS,
} from './audit-retention.js';
import { hashToken, newToken } from './auth/tokens.js';
import { type Ceilings, DEFAULT_CEILINGS } from './ceilings.js';
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  defaultMaxConnections,
  limitConnections,
  openFileLimit,
} from './connection-limits.js';
import type { PlatformContext } from './context.js';
import { appOriginsFromEnv, appOriginsOf } from './cors.js';
import { DataHealth } from './data-health.js';
import { DeniedRequests } from './denied-requests.js';
import { Executor } from './executor/pool.js';
import { Sandboxes } from './executor/sandbox.js';
import { HeldBudget } from './held-budget.js';
import { PlatformMetrics } from './metrics.js';
import { sweepScratch } from './publish.js';
import { rateLimitCounters } from './rate-limit-counters.js';
import { VersionRetention } from './retention.js';
import { Runtimes } from './runtimes.js';
import { SolutionSlots } from './solution-slots.js';
import { DATABASE_URL_ENV, openStore } from './store/open.js';
import type { PlatformStore } from './store/types.js';
import { TtlCache } from './ttl-cache.js';
import { loadMasterKey } from './vault/master-key.js';
import { keyIdOf } from './vault/seal.js';
import { Vault } from './vault/vault.js';

export const ADMIN_TOKEN_ENV = 'RESTFN_ADMIN_TOKEN';

/**
 * Executor workers at most: four per core, at least 8, so that several solutions stuck at their
 * ceilings at once still leave workers for the others (a worker is made when first needed, and
 * waits idle for little memory). Past it, a solution waits for a worker: for at most the
 * ceilings' time.
 */
export const DEFAULT_MAX_WORKERS = Math.max(8, 4 * availableParallelism());
/**
 * The workers' solution caches together: a small solution (20 functions) counts ~70 KB, so each of
 * 8 workers keeps ~450 of them, more than its share of 1,000 active solutions (issue 41).
 */
export const DEFAULT_SOLUTION_CACHE_MB = 256;

/**
 * How long a token's user or a solution's current version is taken from memory. Changes clear
 * them at once (the store's change notifications, from every instance); this bounds how late a
 * change is seen if a notification was lost.
 */
const CACHE_TTL_MS = 1000;

/** A scratch folder at least this old is a dead publish's (on PostgreSQL; see `sweepScratch`). */
const SCRATCH_AGE_MS = 10 * 60_000;

export interface ServeOptions {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** 0 picks a free port. @default 8080 */
  readonly port?: number;
  /**
   * Where the platform keeps its state (with a database: only its copies of published versions).
   * @default './.restfn-server'
   */
  readonly dataDir?: string;
  /**
   * A PostgreSQL URL: the state lives there, shared by every instance given the same URL.
   * @default env RESTFN_DATABASE_URL, else the embedded SQLite file in `dataDir`
   */
  readonly databaseUrl?: string;
  /** Let functions call loopback and private addresses (tests, a trusted network). @default false */
  readonly allowPrivateTargets?: boolean;
  /** Hosts (or IPs) a solution may call although they are private, by solution. */
  readonly allowTargets?: Readonly<Record<string, readonly string[]>>;
  readonly masterKeyFile?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** @default 'info' */
  readonly logLevel?: string;
  /** Where log lines go. @default process.stderr */
  readonly logStream?: NodeJS.WritableStream;
  /** Requests per minute per token. @default 1200 */
  readonly rateLimit?: number;
  /**
   * The address browsers and OAuth providers reach the platform at (behind a proxy: its public
   * https address): connect flows send users back to `<publicUrl>/api/v1/oauth/callback`.
   * @default the address it listens on
   */
  readonly publicUrl?: string;
  /** Proxies whose X-Forwarded-* headers are believed (addresses or CIDR ranges). @default none */
  readonly trustProxy?: readonly string[];
  /**
   * Most executor workers (threads that run solutions' work, one solution at a time each).
   * @default DEFAULT_MAX_WORKERS
   */
  readonly maxWorkers?: number;
  /**
   * Megabytes the workers' prepared solutions may take together (each worker an even share; the
   * least recently used are made again when needed). @default DEFAULT_SOLUTION_CACHE_MB
   */
  readonly solutionCacheMb?: number;
  /** The operator's ceilings over the limits solutions set (`--max-*`). @default DEFAULT_CEILINGS */
  readonly ceilings?: Partial<Ceilings>;
  /** How long a shutdown waits for requests in flight. @default 10000 */
  readonly shutdownTimeoutMs?: number;
  /** `GET /metrics` also on this port of the loopback address, without a token (0: any free one). */
  readonly metricsPort?: number;
  /** Megabytes a solution's kept versions may take (`--max-solution-mb`). @default DEFAULT_MAX_SOLUTION_MB */
  readonly maxSolutionMb?: number;
  /** The newest versions of a solution kept; older ones are removed (0: keep all). @default DEFAULT_KEEP_VERSIONS */
  readonly keepVersions?: number;
  /** MB of large request bodies in flight and answers not yet written out, in all. @default 256 */
  readonly maxHeldMb?: number;
  /** The same, of one user. @default 64 */
  readonly maxHeldMbPerUser?: number;
  /** The time a client has to send a request's headers. @default DEFAULT_HEADERS_TIMEOUT_MS */
  readonly headersTimeoutMs?: number;
  /** Connections at once. @default half the open-file limit, at most 10,000 (`defaultMaxConnections`) */
  readonly maxConnections?: number;
  /** Connections at once from one address (`trustProxy` ones excepted). @default 256 */
  readonly maxConnectionsPerAddress?: number;
  /**
   * Origins whose pages may call the API with a user's token (CORS), such as
   * `https://app.example`; a connect flow may return to them. `*` is refused.
   * @default env RESTFN_APP_ORIGINS (comma or space separated), else none
   */
  readonly appOrigins?: readonly string[];
  /**
   * Audit entries older than this many days are removed (0: kept whatever their age).
   * @default env RESTFN_AUDIT_RETENTION_DAYS, else DEFAULT_AUDIT_RETENTION_DAYS (90)
   */
  readonly auditRetentionDays?: number;
  /**
   * Only the newest this many audit entries are kept (0: any number).
   * @default env RESTFN_AUDIT_MAX_ROWS, else DEFAULT_AUDIT_MAX_ROWS (0)
   */
  readonly auditMaxRows?: number;
  /** Injected time (audit retention's cutoff). @default the system's */
  readonly clock?: Pick<Clock, 'now'>;
}

/**
 * A solution's versions may take 256 MB: a large real solution (hundreds of functions with their
 * scripts) is 1-2 MB, so 50 versions of it fit several times over, while uploads of the largest
 * size (32 MB) stop after 8 versions.
 */
export const DEFAULT_MAX_SOLUTION_MB = 256;
/** The last 50 versions are kept: months of daily publishes to diff against and publish again. */
export const DEFAULT_KEEP_VERSIONS = 50;

export interface Platform {
  readonly url: string;
  readonly app: FastifyInstance;
  /** Set when this start created the first admin without RESTFN_ADMIN_TOKEN: shown once. */
  readonly adminToken?: string;
  /** Where `--metrics-port` serves the metrics (`http://127.0.0.1:PORT/metrics`). */
  readonly metricsUrl?: string;
  /** What `GET /metrics` shows (an embedder may add its own gauges). */
  readonly metrics: PlatformMetrics;
  /** The origins whose pages may call the API, as checked (`--app-origin`, RESTFN_APP_ORIGINS). */
  readonly appOrigins: readonly string[];
  /** Stops accepting, lets requests in flight finish (bounded), then closes everything. */
  close(): Promise<void>;
}

/** Opens the state, makes sure there is an admin, and listens. */
export async function startPlatform(options: ServeOptions = {}): Promise<Platform> {
  const env = options.env ?? process.env;
  // Checked before anything is opened: a wrong origin stops the start.
  const appOrigins = options.appOrigins?.length ? appOriginsOf(options.appOrigins) : appOriginsFromEnv(env);
  const auditSettings = auditRetentionOf(options, env);
  const dataDir = resolve(options.dataDir ?? '.restfn-server');
  const { key } = loadMasterKey(dataDir, {
    ...(options.masterKeyFile ? { file: options.masterKeyFile } : {}),
    env,
  });
  // The owner's only, whatever holds the state: it keeps the copies of published versions.
  privateFolder(dataDir);
  const databaseUrl = options.databaseUrl ?? (env[DATABASE_URL_ENV] || undefined);
  const store = await openStore(dataDir, databaseUrl);
  try {
    // Before the key is checked: a key rotation running now finishes first, and none starts while
    // this instance serves.
    await store.announce();
    // Scratch folders of publishes a dead process left (kill -9): on SQLite this process holds the
    // data folder (serve.lock), so all of them; on PostgreSQL instances given one --data would
    // share it, so only those older than any live validation lasts.
    const executionMs = options.ceilings?.executionMs ?? DEFAULT_CEILINGS.executionMs;
    sweepScratch(dataDir, databaseUrl ? Math.max(2 * executionMs, SCRATCH_AGE_MS) : 0);
    // A wrong key would only show at the first execution, and new credentials would then be
    // sealed under two keys: refuse to start instead.
    // The key recorded at the first start counts too: instances on one database with different
    // keys would otherwise all start while no credential is stored, then seal under both.
    const keyId = keyIdOf(key);
    const sealedUnder =
      (await store.allCredentials()).find((row) => row.keyId !== keyId)?.keyId ??
      (await store.masterKeyId(keyId));
    if (sealedUnder !== keyId) {
      throw new CredentialError(
        'CREDENTIAL_KEY_INVALID',
        `the master key given (id ${keyId}) does not open this data: it is sealed under key ${sealedUnder}; start with that key (RESTFN_MASTER_KEY or --master-key-file), or the one 'restfn serve rotate-key' wrote`,
      );
    }
    checkAdminToken(env);
    const vault = new Vault(store, key);
    const auditLog = new AuditLog(store);
    const tokens = new TtlCache<string, Awaited<ReturnType<PlatformStore['tokenByHash']>>>(CACHE_TTL_MS);
    const versions = new TtlCache<string, Awaited<ReturnType<PlatformStore['currentVersion']>>>(CACHE_TTL_MS);
    // A change made here or by another instance on the same database is seen at once.
    store.onChange((change) => {
      if (change.kind === 'version') versions.delete(change.solution);
      else if (change.kind === 'access') tokens.clear();
      else {
        versions.clear();
        tokens.clear();
      }
    });
    const ceilings: Ceilings = { ...DEFAULT_CEILINGS, ...options.ceilings };
    const executor = new Executor({
      dataDir,
      ceilings,
      allowPrivateTargets: options.allowPrivateTargets === true,
      allowTargets: options.allowTargets ?? {},
      maxWorkers: options.maxWorkers ?? DEFAULT_MAX_WORKERS,
      cacheBytes: (options.solutionCacheMb ?? DEFAULT_SOLUTION_CACHE_MB) * 1024 * 1024,
      records: (solution) => vault.records(solution),
      observer: {
        call: (solution, fn, seconds, outcome) => metrics.remoteCall(solution, fn, seconds, outcome),
        retry: (solution, fn) => metrics.retried(solution, fn),
      },
    });
    const sandboxes = new Sandboxes({
      ceilings,
      allowPrivateTargets: options.allowPrivateTargets === true,
      allowTargets: options.allowTargets ?? {},
      records: (solution) => vault.records(solution),
    });
    const retention = new VersionRetention({
      store,
      dataDir,
      maxBytes: (options.maxSolutionMb ?? DEFAULT_MAX_SOLUTION_MB) * 1024 * 1024,
      keep: options.keepVersions ?? DEFAULT_KEEP_VERSIONS,
      audit: (entries) => store.audit(entries),
    });
    // Every instance removes its own folders of the versions removed (by it or another instance).
    store.onChange((change) => {
      if (change.kind !== 'version') return;
      retention.prune(change.solution).catch((err: unknown) => {
        retention.log.warn(
          { solution: change.solution, err },
          'could not remove the folders of removed versions',
        );
      });
    });
    await retention.pruneAll();
    const allowedTargets = new AllowedTargets(store, {
      allowPrivateTargets: options.allowPrivateTargets === true,
      allowTargets: options.allowTargets ?? {},
    });
    const runtimes = new Runtimes({
      versions,
      dataDir,
      store,
      executor,
      sandboxes,
      retention,
      targets: allowedTargets,
    });
    const slots = new SolutionSlots(ceilings.concurrentPerSolution);
    let listeningUrl = '';
    // 256 MB of large bodies in flight and unread answers, 64 MB of them one user's (two 30 MB
    // uploads at once, or one answer at --max-answer-mb's 50).
    const held = new HeldBudget(
      (options.maxHeldMb ?? 256) * 1024 * 1024,
      (options.maxHeldMbPerUser ?? 64) * 1024 * 1024,
    );
    const metrics = platformMetrics(runtimes, slots, auditLog, held);
    const auditRemoved = metrics.counter(
      'restfn_audit_removed_total',
      'Audit entries audit retention removed, by reason (age: --audit-retention-days; rows: --audit-max-rows).',
    );
    const auditRetention = new AuditRetention({
      store,
      settings: auditSettings,
      clock: options.clock ?? SYSTEM_CLOCK,
      removed: (reason, count) => auditRemoved.inc({ reason }, count),
      audit: (entries) => store.audit(entries),
    });
    const ctx: PlatformContext = {
      metrics,
      retention,
      dataHealth: new DataHealth({ dataDir, store }),
      held,
      maxAnswerMb: ceilings.answerMb,
      dataDir,
      publicUrl: () => options.publicUrl ?? listeningUrl,
      appOrigins,
      targets: allowedTargets.flags,
      allowedTargets,
      store,
      vault,
      runtimes,
      slots,
      auditLog,
      counters: rateLimitCounters(store),
      denied: new DeniedRequests((entries) => store.audit(entries)),
      tokens,
      versions,
      audit: async (req, entry) =>
        auditLog.record({ ...entry, at: new Date().toISOString(), actor: req.user?.name ?? 'anonymous' }),
    };
    let closing: Promise<void> | undefined;
    // stderr written by the thread's own I/O, not a write call per line on the request thread (a
    // pipe's or a file's process.stderr writes synchronously): lines written while one is being
    // written go out together. Flushed when the platform closes and at exit.
    // At most 16 MB waiting: a stderr nobody reads drops lines rather than filling the memory.
    const stderrLog = options.logStream
      ? undefined
      : destination({ dest: 2, sync: false, maxLength: 16 * 1024 * 1024 });
    const app = await buildApp(ctx, {
      logLevel: options.logLevel ?? 'info',
      logStream: options.logStream ?? stderrLog!,
      rateLimit: options.rateLimit ?? 1200,
      bodyLimit: 1024 * 1024,
      ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
      isClosing: () => closing !== undefined,
      headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
      appOrigins,
    });
    limitConnections(
      app.server,
      {
        maxConnections: options.maxConnections ?? defaultMaxConnections(openFileLimit()),
        maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
      },
      options.trustProxy ?? [],
      app.log,
    );
    executor.log = app.log;
    retention.log = app.log;
    auditRetention.log = app.log;
    sandboxes.log = app.log;
    const host = options.host ?? '127.0.0.1';
    const port = options.port ?? 8080;
    let url: string;
    try {
      await app.listen({ host, port });
      // The address asked for (fastify names one of the machine's when it is 0.0.0.0 or ::).
      const bound = (app.server.address() as { port: number }).port;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
      listeningUrl = url;
    } catch (error) {
      await app.close();
      const code = (error as { code?: string }).code;
      throw new UsageError(
        code === 'EADDRINUSE'
          ? `port ${port} on ${host} is in use: stop what uses it, or pick another with --port (0: any free one)`
          : `cannot listen on ${host}:${port} (${code ?? (error as Error).message}): check --host and --port`,
        'LISTEN_FAILED',
      );
    }
    // The first admin is made once the server listens: a start that fails (a busy port) must not
    // make an admin whose token, printed only now, nobody saw.
    let adminToken: string | undefined;
    try {
      adminToken = await ensureAdmin(store, env);
    } catch (error) {
      await app.close();
      throw error;
    }
    auditRetention.start();
    let metricsServer: Server | undefined;
    let metricsUrl: string | undefined;
    if (options.metricsPort !== undefined) {
      try {
        ({ server: metricsServer, url: metricsUrl } = await serveMetrics(metrics, options.metricsPort));
      } catch (error) {
        await app.close();
        throw error;
      }
    }
    const close = () => {
      closing ??= (async () => {
        metricsServer?.close();
        metrics.close();
        const timeout = options.shutdownTimeoutMs ?? 10_000;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          app.close(),
          new Promise<void>((done) => {
            timer = setTimeout(() => {
              app.server.closeAllConnections();
              done();
            }, timeout);
          }),
        ]);
        clearTimeout(timer);
        await runtimes.close();
        await auditRetention.stop();
        await ctx.denied.close();
        await auditLog.flush();
        await store.close();
        try {
          stderrLog?.flushSync();
        } catch {
          // stderr gone (a closed pipe): nothing more can be said there.
        }
      })();
      return closing;
    };
    return {
      url,
      app,
      metrics,
      appOrigins,
      ...(adminToken ? { adminToken } : {}),
      ...(metricsUrl ? { metricsUrl } : {}),
      close,
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

export const AUDIT_RETENTION_DAYS_ENV = 'RESTFN_AUDIT_RETENTION_DAYS';
export const AUDIT_MAX_ROWS_ENV = 'RESTFN_AUDIT_MAX_ROWS';

/** Audit retention's settings: the options, else the environment, else the defaults. */
function auditRetentionOf(options: ServeOptions, env: NodeJS.ProcessEnv): AuditRetentionSettings {
  const setting = (given: number | undefined, name: string, fallback: number): number => {
    if (given !== undefined) return given;
    const text = env[name]?.trim();
    if (!text) return fallback;
    if (!/^\d+$/.test(text))
      throw new UsageError(`${name} must be a whole number, 0 or more (got '${text}')`);
    return Number(text);
  };
  return {
    days: setting(options.auditRetentionDays, AUDIT_RETENTION_DAYS_ENV, DEFAULT_AUDIT_RETENTION_DAYS),
    maxRows: setting(options.auditMaxRows, AUDIT_MAX_ROWS_ENV, DEFAULT_AUDIT_MAX_ROWS),
  };
}

/** `RESTFN_ADMIN_TOKEN`, when set, must be long enough to be a token (checked before listening). */
function checkAdminToken(env: NodeJS.ProcessEnv): void {
  const given = env[ADMIN_TOKEN_ENV] || undefined;
  if (given !== undefined && given.length < 32) {
    throw new UsageError(
      `${ADMIN_TOKEN_ENV} is too short to be a token: use at least 32 random characters (openssl rand -base64 32)`,
    );
  }
}

/**
 * The first admin: with `RESTFN_ADMIN_TOKEN` set, a user `admin` whose token is that value (an
 * operator's deployment chooses it); otherwise a fresh token, returned to be shown once. Nothing
 * happens when an admin exists. Instances starting together on one empty database take turns
 * (a lock across them): the first makes the admin, the others find it.
 */
export async function ensureAdmin(store: PlatformStore, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return store.exclusive('first-admin', async () => {
    if ((await store.countAdmins()) > 0) return undefined;
    const given = env[ADMIN_TOKEN_ENV] || undefined;
    const token = given ?? newToken();
    const taken = await store.userByName('admin');
    const user = await store.createUser({
      id: randomUUID(),
      name: taken ? `admin-${randomUUID().slice(0, 8)}` : 'admin',
      role: 'admin',
      passwordHash: null,
      solutions: [],
    });
    await store.createToken({ id: randomUUID(), userId: user.id, name: 'bootstrap' }, hashToken(token));
    return given ? undefined : token;
  });
}

/** The platform's metrics, with the gauges read from its parts at each scrape. */
function platformMetrics(
  runtimes: Runtimes,
  slots: SolutionSlots,
  auditLog: AuditLog,
  held: HeldBudget,
): PlatformMetrics {
  const metrics = new PlatformMetrics();
  metrics.gauge('restfn_workers', 'Executor worker threads by state (busy: leased to a solution).', () => {
    const s = runtimes.poolStats();
    return [
      [{ state: 'busy' }, s.busy],
      [{ state: 'idle' }, s.idle],
    ];
  });
  metrics.gauge('restfn_workers_max', 'Most executor workers (--max-workers).', () => [
    [{}, runtimes.poolStats().max],
  ]);
  metrics.gauge(
    'restfn_workers_allowed',
    'Executor workers that may start short work at once now: follows the CPU, from the cores to --max-workers.',
    () => [[{}, runtimes.poolStats().allowed]],
  );
  metrics.gauge(
    'restfn_solution_cache_bytes',
    "Bytes the workers' prepared solutions take (estimated), against --solution-cache-mb.",
    () => [[{}, runtimes.cacheStats().bytes]],
  );
  metrics.gauge(
    'restfn_solution_cache_limit_bytes',
    'The solution cache limit (--solution-cache-mb).',
    () => [[{}, runtimes.cacheStats().limit]],
  );
  // Counts the workers report (pool.ts adds them up), read at each scrape.
  for (const [count, help] of [
    ['hits', "Executions whose solution's runtime the worker kept."],
    [
      'misses',
      "Executions whose solution's runtime was made first (a first use, a new version, or evicted).",
    ],
    ['evictions', 'Runtimes the solution cache closed to stay within its limit.'],
  ] as const) {
    metrics.gauge(
      `restfn_solution_cache_${count}_total`,
      help,
      () => [[{}, runtimes.cacheStats()[count]]],
      'counter',
    );
  }
  metrics.gauge(
    'restfn_workers_waiting',
    'Solutions waiting for a worker because every one runs another solution (the pool is saturated).',
    () => [[{}, runtimes.poolStats().waiting]],
  );
  metrics.gauge('restfn_sandboxes_running', 'Datasource previews running in sandbox processes.', () => [
    [{}, runtimes.poolStats().sandboxes],
  ]);
  metrics.gauge('restfn_executions_in_flight', 'Executions running now, by solution.', () =>
    [...slots.inFlight()].map(([solution, n]) => [{ solution }, n] as const),
  );
  metrics.gauge('restfn_audit_queue_depth', 'Audit entries recorded and not yet being written.', () => [
    [{}, auditLog.queued],
  ]);
  metrics.gauge(
    'restfn_held_bytes',
    'Bytes of large request bodies in flight and answers not yet written out (against --max-held-mb).',
    () => [[{}, held.held]],
  );
  return metrics;
}

/** `--metrics-port`: the metrics alone, on the loopback address, for a Prometheus on the same host. */
async function serveMetrics(
  metrics: PlatformMetrics,
  port: number,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      res.writeHead(200, { 'content-type': METRICS_TYPE });
      // A scraper gone mid-way ends the render; nothing else is to be done about it.
      pipeline(metrics.readable(), res).catch(() => undefined);
    } else res.writeHead(404, { 'content-type': 'text/plain' }).end('GET /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new UsageError(
          error.code === 'EADDRINUSE'
            ? `--metrics-port ${port} on 127.0.0.1 is in use: pick another`
            : `cannot listen on 127.0.0.1:${port} for the metrics (${error.code ?? error.message})`,
          'LISTEN_FAILED',
        ),
      ),
    );
    server.listen(port, '127.0.0.1', resolve);
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics` };
}
