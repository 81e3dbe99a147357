// Issue 41's tenants figures: `restfn serve` at its default flags with many solutions of 20 small
// functions published, a closed-loop load (32 connections) executing functions spread uniformly
// over K solutions, against the same load on one solution, in the same run (rounds interleaved).
// Reported: throughput at K = 100 and K = 1,000 against K = 1 (targets >= 0.8 and >= 0.6), p99
// against one solution's (< 4x), and the server's peak RSS against what the solution cache and the
// workers may hold (RSS bounded by the configured cache). --quick publishes 200 solutions and
// measures K = 100 and K = 200.

import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { meets, printFigure, QUICK } from './figures.mjs';
import { cpuMs, median, rssMb } from './lib.mjs';
import { load } from './load.mjs';
import { startServe, stopServe } from './serve.mjs';

const SOLUTIONS = QUICK ? 200 : 1000;
const FUNCTIONS = 20;
const CONNECTIONS = 32;
const KS = [1, 100, SOLUTIONS];
const REQUESTS = QUICK ? 3_000 : 10_000;
const ROUNDS = QUICK ? 2 : 3;
const WARMUP = QUICK ? 3_000 : 10_000;
const TOKEN = 'rfn_bench_0123456789abcdefghijklmnopqrstuvwxyz';

/** A small solution: 20 GET functions on the remote, each with a query parameter and a transform. */
function solutionFiles(port) {
  const files = {};
  for (let f = 0; f < FUNCTIONS; f++) {
    files[`functions/fn-${f}.platform`] = `provider: DATA_PROVIDER_REST
method: GET
url: http://127.0.0.1:${port}/things/${f}
parameters:
  page:
    location: query
    type: number
    required: false
    value: 1
outputTransform: '{ "count": $count(items), "first": items[0].name }'
`;
  }
  return files;
}

/** A small deterministic generator (the same spread in every round). */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const work = mkdtempSync(join(tmpdir(), 'restfn-bench-tenants-'));
const remote = fork(join(import.meta.dirname, 'item-server.mjs'));
let serve;
try {
  const { port } = await new Promise((resolve) => remote.once('message', resolve));
  serve = await startServe({ dataDir: join(work, 'data'), keyFile: join(work, 'key'), token: TOKEN });
  const files = solutionFiles(port);
  const publishStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = next++; i < SOLUTIONS; i = next++) {
        const res = await serve.api('PUT', `/api/v1/solutions/t-${i}`, { files });
        if (res.status !== 201)
          throw new Error(`publishing t-${i} answered ${res.status}: ${await res.text()}`);
      }
    }),
  );
  const publishSeconds = (performance.now() - publishStarted) / 1000;
  console.log(`${SOLUTIONS} solutions x ${FUNCTIONS} functions published in ${publishSeconds.toFixed(1)} s`);

  const pid = serve.child.pid;
  const run = async (k, amount, seed) => {
    const pick = random(seed);
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 100);
    const before = cpuMs(pid);
    try {
      const result = await load({
        urls: [serve.url],
        path: () =>
          `/api/v1/solutions/t-${Math.floor(pick() * k)}/functions/fn-${Math.floor(pick() * FUNCTIONS)}/execute`,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: '{}',
        connections: CONNECTIONS,
        amount,
      });
      if (result.non2xx > 0) throw new Error(`K = ${k}: ${result.non2xx} answers were not 2xx`);
      return { ...result, cpuUs: ((cpuMs(pid) - before) * 1000) / amount, rss: Math.max(peak, rssMb(pid)) };
    } finally {
      clearInterval(sampler);
    }
  };
  // Warm-up: every solution executed (its first execution after start is not what is measured), and
  // every worker's JIT warm (each worker thread compiles its own code: 8 workers at 100 solutions
  // took 1.8 ms of CPU per execution over the first 6,000 and 0.7-1.0 ms from 20,000 on).
  for (const k of KS) await run(k, Math.max(WARMUP, k * 3), 1);
  const results = Object.fromEntries(KS.map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? KS : [...KS].reverse();
    for (const k of order) results[k].push(await run(k, REQUESTS, 100 + round));
  }
  const of = (k, key) => median(results[k].map((r) => r[key]));
  const peakRss = Math.max(...KS.flatMap((k) => results[k].map((r) => r.rss)));
  console.log(`${REQUESTS} executions a round, ${ROUNDS} rounds interleaved, ${CONNECTIONS} connections`);
  for (const k of KS)
    console.log(
      `K = ${String(k).padStart(4)}  ${of(k, 'perSecond').toFixed(0).padStart(5)}/s  p50 ${of(k, 'p50').toFixed(1)} ms  p99 ${of(k, 'p99').toFixed(1)} ms  CPU ${of(k, 'cpuUs').toFixed(0)} µs per execution  RSS peak ${Math.max(...results[k].map((r) => r.rss)).toFixed(0)} MB`,
    );
  const metrics = await (await serve.api('GET', '/metrics')).text();
  const series = (name) =>
    metrics
      .split('\n')
      .filter((l) => l.startsWith(name))
      .map((l) => Number(l.split(' ').at(-1)))
      .reduce((a, b) => a + b, 0);
  const hits = series('restfn_solution_cache_hits_total');
  const misses = series('restfn_solution_cache_misses_total');
  const cacheMb = series('restfn_solution_cache_limit_bytes') / 2 ** 20;
  if (hits + misses > 0)
    console.log(
      `solution cache: ${hits} hits, ${misses} misses (${((100 * hits) / (hits + misses)).toFixed(1)}% hits), limit ${cacheMb.toFixed(0)} MB`,
    );
  const one = of(1, 'perSecond');
  for (const [k, target, id] of [
    [100, '>= 0.8', 'tenants-100'],
    [SOLUTIONS, SOLUTIONS === 1000 ? '>= 0.6' : '>= 0.6', `tenants-${SOLUTIONS}`],
  ]) {
    const ratio = of(k, 'perSecond') / one;
    printFigure({
      id,
      label: `restfn serve throughput, functions spread over ${k} solutions / one solution (32 connections)`,
      ratio,
      target,
      met: meets(ratio, target),
      detail: `median ${of(k, 'perSecond').toFixed(0)} vs ${one.toFixed(0)} per s; per-round ${results[k].map((r, i) => (r.perSecond / results[1][i].perSecond).toFixed(2)).join(', ')}; CPU per execution ${of(k, 'cpuUs').toFixed(0)} vs ${of(1, 'cpuUs').toFixed(0)} µs`,
    });
  }
  const p99 = of(SOLUTIONS, 'p99') / of(1, 'p99');
  printFigure({
    id: 'tenants-p99',
    label: `p99 latency over ${SOLUTIONS} solutions / one solution's`,
    ratio: p99,
    target: '< 4',
    met: meets(p99, '< 4'),
    detail: `p99 ${of(SOLUTIONS, 'p99').toFixed(1)} vs ${of(1, 'p99').toFixed(1)} ms; p50 ${of(SOLUTIONS, 'p50').toFixed(1)} vs ${of(1, 'p50').toFixed(1)} ms`,
  });
  const baseRss = Math.min(...results[1].map((r) => r.rss));
  const grown = peakRss - baseRss;
  printFigure({
    id: 'tenants-rss',
    label: `RSS growth from one solution to ${SOLUTIONS}, MB / the configured solution cache`,
    ratio: cacheMb > 0 ? grown / cacheMb : grown,
    target: '<= 1',
    met: cacheMb > 0 && grown <= cacheMb,
    detail: `peak ${peakRss.toFixed(0)} MB, one solution ${baseRss.toFixed(0)} MB, cache limit ${cacheMb.toFixed(0)} MB${hits + misses > 0 ? `; cache hits ${((100 * hits) / (hits + misses)).toFixed(1)}%` : ''}; publishing ${SOLUTIONS} took ${publishSeconds.toFixed(1)} s`,
  });
} finally {
  await stopServe(serve?.child);
  remote.kill();
  rmSync(work, { recursive: true, force: true });
}
