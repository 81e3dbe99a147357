import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { UsageError } from '../../errors/restfn-error.js';
import { hashToken, newToken } from '../../platform/auth/tokens.js';
import type { Ceilings } from '../../platform/ceilings.js';
import { ensureAdmin, startPlatform } from '../../platform/serve.js';
import { allowedTargetHost } from '../../platform/ssrf.js';
import { hostsOf } from '../../platform/store/allowed-targets.js';
import { DATABASE_URL_ENV, openStore } from '../../platform/store/open.js';
import {
  decodeMasterKey,
  defaultMasterKeyFile,
  loadMasterKey,
  MASTER_KEY_ENV,
  writeMasterKeyFile,
} from '../../platform/vault/master-key.js';
import { keyIdOf } from '../../platform/vault/seal.js';
import { rotateMasterKey } from '../../platform/vault/vault.js';
import { readableLog } from '../log-lines.js';
import type { ServeCliOptions } from './serve.js';

/** `restfn serve`: listens until SIGTERM or SIGINT, then finishes the requests in flight and stops. */
export async function serve(options: ServeCliOptions): Promise<void> {
  const port = portOf(options.port, '--port');
  const rateLimit = Number(options.rateLimit);
  if (!Number.isInteger(rateLimit) || rateLimit < 1)
    throw new UsageError(`--rate-limit must be a positive number (got '${options.rateLimit}')`);
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  if (!levels.includes(options.logLevel)) {
    throw new UsageError(`--log-level must be one of ${levels.join(', ')} (got '${options.logLevel}')`);
  }
  const ceilings: Ceilings = {
    scriptMs: positive(options.maxScriptMs, '--max-script-ms'),
    expressionMs: positive(options.maxExpressionMs, '--max-expression-ms'),
    memoryMb: positive(options.maxMemoryMb, '--max-memory-mb'),
    executionMs: positive(options.maxExecutionMs, '--max-execution-ms'),
    concurrentPerSolution: positive(options.maxConcurrentPerSolution, '--max-concurrent-per-solution'),
    maxRetries: wholeNumber(options.maxRetries, '--max-retries'),
    minRetryDelayMs: wholeNumber(options.minRetryDelayMs, '--min-retry-delay-ms'),
    requestsPerExecution: positive(options.maxRequestsPerExecution, '--max-requests-per-execution'),
    answerMb: positive(options.maxAnswerMb, '--max-answer-mb'),
  };
  const held = {
    all: positive(options.maxHeldMb, '--max-held-mb'),
    user: positive(options.maxHeldMbPerUser, '--max-held-mb-per-user'),
  };
  // An answer at the limit must fit one user's share, and a user's share the platform's.
  if (held.user < ceilings.answerMb || held.all < held.user) {
    throw new UsageError(
      `--max-held-mb (${held.all}) must be at least --max-held-mb-per-user (${held.user}), and that at least --max-answer-mb (${ceilings.answerMb}): an answer at the limit could never be sent`,
    );
  }
  for (const range of options.trustProxy) {
    if (!isAddressRange(range)) {
      throw new UsageError(
        `--trust-proxy takes an IP address or a CIDR range such as 10.0.0.0/8 (got '${range}')`,
      );
    }
  }
  const allowTargets: Record<string, string[]> = {};
  for (const pair of options.allowTarget) {
    const [solution, host] = pair.split('=');
    if (!solution || !host) throw new UsageError(`--allow-target takes solution=host (got '${pair}')`);
    // Held to the same rule as `restfn targets add` (the API's).
    const checked = allowedTargetHost(host);
    if ('problem' in checked) throw new UsageError(`--allow-target ${pair}: ${checked.problem}`);
    allowTargets[solution] = [...hostsOf(allowTargets, solution), checked.host];
  }
  const platform = await startPlatform({
    host: options.host,
    port,
    dataDir: options.data,
    ...(options.database ? { databaseUrl: options.database } : {}),
    allowPrivateTargets: options.allowPrivateTargets === true,
    allowTargets,
    ...(options.masterKeyFile ? { masterKeyFile: options.masterKeyFile } : {}),
    logLevel: options.logLevel,
    // Logs go to stderr: readable lines for a person at a terminal, JSON lines for a collector.
    ...((options.logFormat === 'auto' ? process.stderr.isTTY : options.logFormat === 'text')
      ? { logStream: readableLog(process.stderr) }
      : {}),
    rateLimit,
    ceilings,
    ...(options.maxWorkers ? { maxWorkers: positive(options.maxWorkers, '--max-workers') } : {}),
    solutionCacheMb: positive(options.solutionCacheMb, '--solution-cache-mb'),
    maxSolutionMb: positive(options.maxSolutionMb, '--max-solution-mb'),
    keepVersions: wholeNumber(options.keepVersions, '--keep-versions'),
    ...(options.auditRetentionDays !== undefined
      ? { auditRetentionDays: wholeNumber(options.auditRetentionDays, '--audit-retention-days') }
      : {}),
    ...(options.auditMaxRows !== undefined
      ? { auditMaxRows: wholeNumber(options.auditMaxRows, '--audit-max-rows') }
      : {}),
    ...(options.metricsPort !== undefined
      ? { metricsPort: portOf(options.metricsPort, '--metrics-port') }
      : {}),
    trustProxy: options.trustProxy,
    maxHeldMb: held.all,
    maxHeldMbPerUser: held.user,
    headersTimeoutMs: positive(options.headersTimeoutMs, '--headers-timeout-ms'),
    ...(options.maxConnections
      ? { maxConnections: positive(options.maxConnections, '--max-connections') }
      : {}),
    maxConnectionsPerAddress: positive(options.maxConnectionsPerAddress, '--max-connections-per-address'),
    ...(options.publicUrl ? { publicUrl: publicUrlOf(options.publicUrl) } : {}),
    appOrigins: options.appOrigin,
  });
  if (!['127.0.0.1', 'localhost', '::1'].includes(options.host)) {
    process.stderr.write(
      `restfn: listening on ${options.host}: the platform speaks plain HTTP; put a TLS-terminating proxy in front of it before anyone connects over a network\n`,
    );
  }
  if (platform.adminToken) {
    process.stdout.write(
      `restfn: the first admin's API token (shown once, keep it now): ${platform.adminToken}\n`,
    );
  }
  if (platform.metricsUrl) process.stderr.write(`restfn: metrics on ${platform.metricsUrl}\n`);
  if (platform.appOrigins.length > 0) {
    process.stderr.write(
      `restfn: pages of these origins may call the API: ${platform.appOrigins.join(', ')}\n`,
    );
  }
  process.stdout.write(`restfn platform listening on ${platform.url}\n`);
  await new Promise<void>((done) => {
    const stop = (signal: string) => {
      process.stderr.write(`restfn: ${signal}: finishing the requests in flight, then stopping\n`);
      // A second signal stops at once.
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      void platform.close().then(done, done);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  process.stderr.write('restfn: platform stopped\n');
}

/** `10.0.0.1`, `10.0.0.0/8`, `fd00::/8`: what proxy-addr (fastify's trustProxy) takes. */
function isAddressRange(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/** `https://restfn.example.com` (no path, query or trailing slash): where the platform is reached. */
function publicUrlOf(text: string): string {
  const url = URL.parse(text);
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search ||
    url.hash ||
    url.username
  ) {
    throw new UsageError(
      `--public-url takes an http(s) address such as https://restfn.example.com (got '${text}')`,
    );
  }
  return url.href.replace(/\/$/, '');
}

function portOf(text: string, flag: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`${flag} must be 0-65535 (got '${text}')`);
  return port;
}

function positive(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`${flag} must be a positive whole number (got '${text}')`);
  return value;
}

function wholeNumber(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0)
    throw new UsageError(`${flag} must be a whole number, 0 or more (got '${text}')`);
  return value;
}

/**
 * `restfn serve rotate-key`: a new master key wraps every credential's data key, in one
 * transaction. With a key file, the new key replaces it and the old one is kept beside it
 * (`.previous`: backups made before today need it); with RESTFN_MASTER_KEY, the new key comes from
 * RESTFN_NEW_MASTER_KEY and the operator swaps the variables.
 */
export async function rotateKey(options: {
  data: string;
  database?: string;
  masterKeyFile?: string;
}): Promise<void> {
  const dataDir = resolve(options.data);
  const databaseUrl = options.database ?? (process.env[DATABASE_URL_ENV] || undefined);
  if (!databaseUrl && !existsSync(join(dataDir, 'platform.db')))
    throw new UsageError(`no platform state in ${dataDir} (--data)`);
  const fromEnv = Boolean(process.env[MASTER_KEY_ENV]);
  const current = loadMasterKey(dataDir, options.masterKeyFile ? { file: options.masterKeyFile } : {});
  const nextText = process.env.RESTFN_NEW_MASTER_KEY;
  if (fromEnv && !nextText) {
    throw new UsageError(
      `the master key comes from ${MASTER_KEY_ENV}: put the new one in RESTFN_NEW_MASTER_KEY (openssl rand -base64 32)`,
    );
  }
  const next = nextText ? decodeMasterKey(nextText, 'RESTFN_NEW_MASTER_KEY') : randomBytes(32);
  const file = fromEnv
    ? undefined
    : (current.file ?? resolve(options.masterKeyFile ?? defaultMasterKeyFile()));
  // The new key is on disk before any record depends on it: a crash after the commit leaves it in
  // `.next`, never lost.
  if (file) writeMasterKeyFile(`${file}.next`, next);
  const store = await openStore(dataDir, databaseUrl);
  let count: number;
  try {
    // On PostgreSQL, instances on other hosts are seen by the database: refused while any serves.
    count = await store.whileNoneServes(() => rotateMasterKey(store, current.key, next));
  } catch (error) {
    // Refused before anything was re-sealed (a server runs): the new key is of no use.
    if (file && error instanceof UsageError) rmSync(`${file}.next`, { force: true });
    throw error;
  } finally {
    await store.close();
  }
  if (file) {
    // Kept under its own id: every rotation keeps the key before it (older backups need them).
    const kept = `${file}.previous-${keyIdOf(current.key)}`;
    copyFileSync(file, kept);
    renameSync(`${file}.next`, file);
    process.stderr.write(
      `restfn: ${count} credential(s) re-encrypted; the new key is in ${file}, the old one in ${kept} (backups made before now need it)\n`,
    );
  } else {
    process.stderr.write(
      `restfn: ${count} credential(s) re-encrypted; start the platform with ${MASTER_KEY_ENV} set to RESTFN_NEW_MASTER_KEY's value\n`,
    );
  }
}

/**
 * `restfn serve reset-admin`: a new token for an admin, for an operator who lost the first admin's
 * (only the token's hash is stored, so it cannot be shown again). Works while the platform runs
 * (the token is found at its next lookup); the old tokens stay valid until revoked.
 */
export async function resetAdmin(options: { data: string; database?: string; user?: string }): Promise<void> {
  const dataDir = resolve(options.data);
  const databaseUrl = options.database ?? (process.env[DATABASE_URL_ENV] || undefined);
  if (!databaseUrl && !existsSync(join(dataDir, 'platform.db')))
    throw new UsageError(`no platform state in ${dataDir} (--data)`);
  const store = await openStore(dataDir, databaseUrl);
  try {
    const admins = (await store.listUsers()).filter((u) => u.role === 'admin');
    const chosen = options.user === undefined ? admins[0] : admins.find((u) => u.name === options.user);
    if (options.user !== undefined && !chosen) {
      throw new UsageError(
        `no admin named '${options.user}'; the admins are ${admins.map((u) => `'${u.name}'`).join(', ') || 'none'}`,
      );
    }
    let token: string;
    let name: string;
    if (chosen) {
      token = newToken();
      name = chosen.name;
      await store.createToken({ id: randomUUID(), userId: chosen.id, name: 'reset-admin' }, hashToken(token));
    } else {
      // No admin at all: the first one is made, as a first start would.
      token = (await ensureAdmin(store, {}))!;
      name = 'admin';
    }
    await store.audit([
      {
        at: new Date().toISOString(),
        actor: 'system',
        solution: null,
        action: 'token.create',
        target: name,
        outcome: 'ok',
        correlationId: null,
        durationMs: null,
        detail: JSON.stringify({ by: 'restfn serve reset-admin' }),
      },
    ]);
    process.stderr.write(`restfn: a new API token for admin '${name}' (shown once, keep it now):\n`);
    process.stdout.write(`${token}\n`);
  } finally {
    await store.close();
  }
}
