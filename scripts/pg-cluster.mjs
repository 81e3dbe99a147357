// A throwaway PostgreSQL for the tests and benchmarks (issue 16): the system's server binaries,
// `initdb` into a temporary folder, a free port on 127.0.0.1, run as the unprivileged `postgres`
// user when this process is root (PostgreSQL refuses to run as root), removed at `stop()`.
// With RESTFN_TEST_DATABASE_URL set, a fresh database on that server is used instead.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The newest installed server's bin folder (Debian: /usr/lib/postgresql/<major>/bin). */
export function postgresBin() {
  const base = '/usr/lib/postgresql';
  const majors = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0) {
    throw new Error(
      'no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: apt-get install -y postgresql',
    );
  }
  return join(base, majors[0], 'bin');
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const asRoot = process.getuid?.() === 0;

/** Runs a server binary, as `postgres` when this process is root. */
function pgRun(bin, args, options = {}) {
  const [cmd, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(postgresBin(), bin), ...args]]
    : [join(postgresBin(), bin), args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8', ...options });
  if (result.status !== 0)
    throw new Error(`${bin} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

/**
 * Starts a cluster (or takes a database on RESTFN_TEST_DATABASE_URL's server).
 * @returns {Promise<{ url: string, stop(): Promise<void>, pause(): void, resume(): void }>}
 */
export async function startPostgres() {
  const given = process.env.RESTFN_TEST_DATABASE_URL;
  if (given) return onServer(given);
  const dir = mkdtempSync(join(tmpdir(), 'restfn-pg-'));
  chmodSync(dir, 0o755);
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const data = join(dir, 'data');
  pgRun('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const start = () =>
    pgRun('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    createDatabase: () => createDatabase(url),
    /** Stops the server (fast shutdown: connections are cut), keeping its data. */
    pause: () => pgRun('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']),
    /** Starts it again on the same port. */
    resume: start,
    async stop() {
      try {
        pgRun('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A new, empty database on the server of `url`; its URL. */
async function createDatabase(url) {
  const { default: pg } = await import('pg');
  const name = `restfn_test_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

/** A fresh database on a server someone else runs; dropped at stop. */
async function onServer(url) {
  const { default: pg } = await import('pg');
  const own = await createDatabase(url);
  const name = new URL(own).pathname.slice(1);
  return {
    url: own,
    createDatabase: () => createDatabase(url),
    pause() {
      throw new Error('pausing needs a cluster of the test own: unset RESTFN_TEST_DATABASE_URL');
    },
    resume() {},
    async stop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
