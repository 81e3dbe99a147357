// Issue 16's figures: executions per second through one `restfn serve` on PostgreSQL, and through
// two instances on the same database with the client going round-robin (concurrency 64 in all,
// same remote); then one instance on SQLite against one on PostgreSQL. Nothing may be lost: every
// answer is a 200 and every execution has its audit row. Starts its own throwaway PostgreSQL
// (scripts/pg-cluster.mjs), or uses RESTFN_TEST_DATABASE_URL's server.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../scripts/pg-cluster.mjs';
import { meets, printFigure, QUICK } from './figures.mjs';
import { load as loadOn } from './load.mjs';
import { itemService, startServe } from './serve.mjs';

const CONCURRENCY = 64;
const REQUESTS = QUICK ? 4_000 : 16_000;
// Per instance: a server reaches its steady speed only after some thousands of executions (JIT);
// each instance is warmed alike, so the one-instance run does not race a colder second instance.
const WARMUP = QUICK ? 4_000 : 10_000;
const ROUNDS = QUICK ? 2 : 3;
const TOKEN = 'rfn_bench_cluster_0123456789abcdefghijklmnop';

const work = mkdtempSync(join(tmpdir(), 'restfn-bench-cluster-'));
const { remote, fn } = await itemService();
const cluster = await startPostgres();
const servers = [];

/** A `restfn serve` of this run (its state in `name`, the run's one master key); its URL. */
async function serve(name, args) {
  const server = await startServe({
    dataDir: join(work, name),
    keyFile: join(work, 'master.key'),
    token: TOKEN,
    args,
  });
  servers.push(server.child);
  return server.url;
}

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const executePath = '/api/v1/solutions/crm/functions/rest-get-things/execute';

/**
 * Runs `amount` executions round-robin over `urls`, 64 connections in all: executions per second,
 * and the CPU each took in the restfn processes and in PostgreSQL's (ms per execution).
 */
async function load(urls, amount) {
  const before = cpu();
  const r = await loadOn({ urls, path: executePath, headers, body: '{}', connections: CONCURRENCY, amount });
  const after = cpu();
  if (r.non2xx > 0) throw new Error(`${r.non2xx} answers were not 2xx`);
  return {
    perSecond: r.perSecond,
    restfnMs: (after.restfn - before.restfn) / amount,
    postgresMs: (after.postgres - before.postgres) / amount,
  };
}

/** CPU time so far (ms, /proc clock ticks) of the restfn servers and of every postgres process. */
function cpu() {
  const ticks = (pid) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return 0;
    }
  };
  let postgres = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') postgres += ticks(pid);
    } catch {
      // gone meanwhile
    }
  }
  return { restfn: servers.reduce((sum, child) => sum + ticks(child.pid), 0), postgres };
}

try {
  const database = await cluster.createDatabase();
  // One after the other: the first creates the master key file the others then read.
  const a = await serve('a', ['--database', database]);
  const b = await serve('b', ['--database', database]);
  const lite = await serve('lite', []);
  for (const url of [a, lite]) {
    const res = await fetch(`${url}/api/v1/solutions/crm`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ files: { 'functions/rest-get-things.platform': fn } }),
    });
    if (!res.ok) throw new Error(`publish answered ${res.status}`);
  }
  for (const url of [a, b, lite]) await load([url], WARMUP);

  // Interleaved rounds: one instance, two instances, SQLite; medians.
  const one = [];
  const two = [];
  const sqlite = [];
  for (let round = 0; round < ROUNDS; round++) {
    one.push(await load([a], REQUESTS));
    two.push(await load([a, b], REQUESTS));
    sqlite.push(await load([lite], REQUESTS));
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const of = (runs, field) => median(runs.map((r) => r[field]));
  const [oneRate, twoRate, liteRate] = [of(one, 'perSecond'), of(two, 'perSecond'), of(sqlite, 'perSecond')];
  const cpuLine = (runs) =>
    `CPU per execution: restfn ${of(runs, 'restfnMs').toFixed(2)} ms, PostgreSQL ${of(runs, 'postgresMs').toFixed(2)} ms`;

  // Nothing lost: every execution sent to the PostgreSQL instances has its audit row.
  const db = new pg.Client({ connectionString: database });
  await db.connect();
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM audit WHERE action = 'execute'`);
  await db.end();
  const sent = 2 * WARMUP + ROUNDS * 2 * REQUESTS;
  if (rows[0].n !== sent) throw new Error(`${sent} executions sent, ${rows[0].n} audited`);

  console.log(`${REQUESTS} executions per round, ${ROUNDS} rounds, ${CONCURRENCY} connections in all`);
  console.log(`one instance (PostgreSQL)  ${oneRate.toFixed(0).padStart(6)}/s  ${cpuLine(one)}`);
  console.log(`two instances (PostgreSQL) ${twoRate.toFixed(0).padStart(6)}/s  ${cpuLine(two)}`);
  console.log(`one instance (SQLite)      ${liteRate.toFixed(0).padStart(6)}/s  ${cpuLine(sqlite)}`);
  console.log(`audit rows: ${rows[0].n} of ${sent} executions`);
  const ratio = twoRate / oneRate;
  printFigure({
    id: 'cluster-two-vs-one',
    label: 'executions/s, two instances / one instance on one PostgreSQL (round-robin, concurrency 64)',
    ratio,
    target: '>= 1.0',
    met: meets(ratio, '>= 1.0'),
    detail: `${twoRate.toFixed(0)} vs ${oneRate.toFixed(0)} per s, medians of ${ROUNDS}; all ${sent} audited`,
  });
  printFigure({
    id: 'store-sqlite-vs-postgres',
    label: 'executions/s, one instance: SQLite store / PostgreSQL store (concurrency 64)',
    ratio: liteRate / oneRate,
    target: 'info',
    met: true,
    detail: `${liteRate.toFixed(0)} vs ${oneRate.toFixed(0)} per s`,
  });
} finally {
  for (const child of servers) child.kill('SIGTERM');
  remote.kill();
  await new Promise((resolve) => setTimeout(resolve, 500));
  await cluster.stop();
  rmSync(work, { recursive: true, force: true });
}
