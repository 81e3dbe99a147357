// Issue 29's platform figure: `restfn serve` against "the server limit" (bench/server-limit-server.mjs,
// the hand-written server for the same job), both as subprocesses on the same remote
// (bench/item-server.mjs), warmed alike, 32 connections in a closed loop (bench/load.mjs), rounds
// interleaved. Reported: throughput restfn / limit (target >= 0.90) and the p50 restfn adds
// (< 0.5 ms).
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { meets, printFigure, QUICK } from './figures.mjs';
import { median } from './lib.mjs';
import { load } from './load.mjs';
import { itemService, startServe } from './serve.mjs';

const CONCURRENCY = 32;

/** CPU time (user + system) of a process and all its threads so far, in ms (Linux's /proc). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
}
const REQUESTS = QUICK ? 4_000 : 20_000;
const WARMUP = QUICK ? 5_000 : 10_000;
const ROUNDS = QUICK ? 2 : 3;
const TOKEN = 'rfn_bench_0123456789abcdefghijklmnopqrstuvwxyz';
const PATH = '/api/v1/solutions/crm/functions/rest-get-things/execute';

const work = mkdtempSync(join(tmpdir(), 'restfn-bench-limit-'));
const { remote, fn } = await itemService();
const remoteUrl = /url: (\S+)/.exec(fn)[1];
const transform = /outputTransform: '(.*)'/.exec(fn)[1];
mkdirSync(join(work, 'crm', 'functions'), { recursive: true });
writeFileSync(join(work, 'crm', 'functions', 'rest-get-things.platform'), fn);

let serve;
let limit;
try {
  serve = await startServe({ dataDir: join(work, 'data'), keyFile: join(work, 'key'), token: TOKEN });
  const published = await serve.api('PUT', '/api/v1/solutions/crm', {
    files: { 'functions/rest-get-things.platform': fn },
  });
  if (published.status !== 201) throw new Error(`publish answered ${published.status}`);
  limit = fork(join(import.meta.dirname, 'server-limit-server.mjs'), [remoteUrl, TOKEN, transform]);
  const { port } = await new Promise((resolve) => limit.once('message', resolve));
  const servers = { restfn: serve.url, limit: `http://127.0.0.1:${port}` };
  const run = (name, amount) =>
    load({
      urls: [servers[name]],
      path: PATH,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
      connections: CONCURRENCY,
      amount,
    });
  for (const name of ['limit', 'restfn']) {
    const warm = await run(name, WARMUP);
    if (warm.non2xx > 0) throw new Error(`${name}: ${warm.non2xx} answers were not 2xx`);
  }
  // CPU time of each server process (all its threads) per execution: steadier than throughput on a
  // busy machine, and what decides throughput when the load generator shares the cores.
  const pids = { restfn: serve.child.pid, limit: limit.pid };
  const results = { restfn: [], limit: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? ['limit', 'restfn'] : ['restfn', 'limit']) {
      const before = cpuMs(pids[name]);
      const result = await run(name, REQUESTS);
      results[name].push({ ...result, cpuUs: ((cpuMs(pids[name]) - before) * 1000) / REQUESTS });
    }
  }
  const of = (name, key) => median(results[name].map((r) => r[key]));
  const ratio = of('restfn', 'perSecond') / of('limit', 'perSecond');
  console.log(`${REQUESTS} executions a round, ${ROUNDS} rounds interleaved, ${CONCURRENCY} connections`);
  for (const name of ['limit', 'restfn'])
    console.log(
      `${name.padEnd(7)} ${of(name, 'perSecond').toFixed(0).padStart(6)}/s  p50 ${of(name, 'p50').toFixed(2)} ms  p99 ${of(name, 'p99').toFixed(2)} ms  CPU ${of(name, 'cpuUs').toFixed(0)} µs per execution`,
    );
  printFigure({
    id: 'server-limit-throughput',
    label: 'restfn serve execute throughput / the server limit (hand-written, 32 connections)',
    ratio,
    target: '>= 0.90',
    met: meets(ratio, '>= 0.90'),
    detail: `median ${of('restfn', 'perSecond').toFixed(0)} vs ${of('limit', 'perSecond').toFixed(0)} per s, ${ROUNDS} interleaved rounds; per-round ratios ${results.restfn.map((r, i) => (r.perSecond / results.limit[i].perSecond).toFixed(2)).join(', ')}; CPU per execution ${of('restfn', 'cpuUs').toFixed(0)} vs ${of('limit', 'cpuUs').toFixed(0)} µs`,
  });
  const added = of('restfn', 'p50') - of('limit', 'p50');
  printFigure({
    id: 'server-limit-p50-added',
    label: 'p50 latency restfn serve adds over the server limit, ms (32 connections)',
    ratio: added,
    target: '< 0.5 ms',
    unit: 'ms',
    met: meets(added, '< 0.5'),
    detail: `p50 ${of('restfn', 'p50').toFixed(2)} vs ${of('limit', 'p50').toFixed(2)} ms; p99 ${of('restfn', 'p99').toFixed(2)} vs ${of('limit', 'p99').toFixed(2)} ms`,
  });
} finally {
  serve?.child.kill('SIGTERM');
  limit?.kill();
  remote.kill();
  rmSync(work, { recursive: true, force: true });
}
