// Issue 14's figure: what the platform adds. The same function (a GET of a 100-item JSON body, with
// an outputTransform) runs 1) in process through the library, 32 at a time, and 2) through
// `restfn serve` over HTTP, 32 connections in a closed loop (bench/load.mjs), against the same
// remote server.
// Reported: throughput platform / library (target >= 0.8) and the p50 the platform adds (< 1 ms).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { meets, printFigure, QUICK } from './figures.mjs';
import { cpuMs as processCpuMs } from './lib.mjs';
import { load as loadOn } from './load.mjs';
import { itemService, startServe } from './serve.mjs';

const ROOT = join(import.meta.dirname, '..');
const { loadSolution } = await import(join(ROOT, 'dist', 'definition', 'solution.js'));
const { createRuntime } = await import(join(ROOT, 'dist', 'runtime', 'runtime.js'));

const CONCURRENCY = 32;
const REQUESTS = QUICK ? 4_000 : 20_000;
// Both warmed alike and long enough: a server reaches its steady speed after some thousands of
// executions (JIT), later than the library in process.
const WARMUP = QUICK ? 5_000 : 10_000;
const TOKEN = 'rfn_bench_0123456789abcdefghijklmnopqrstuvwxyz';

const work = mkdtempSync(join(tmpdir(), 'restfn-bench-platform-'));
const { remote, fn } = await itemService();
mkdirSync(join(work, 'crm', 'functions'), { recursive: true });
writeFileSync(join(work, 'crm', 'functions', 'rest-get-things.platform'), fn);

let server;
try {
  // 1. The library in this process, 32 executions in flight at a time.
  const runtime = createRuntime(loadSolution(join(work, 'crm')));
  const library = async (count) => {
    const latencies = [];
    let next = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < count) {
          const t = performance.now();
          const r = await runtime.execute('rest-get-things');
          if (r.status !== 'ok' || r.output.count !== 100) throw new Error('unexpected output');
          latencies.push(performance.now() - t);
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return {
      perSecond: (count / (performance.now() - started)) * 1000,
      cpuMs: (used.user + used.system) / 1000 / count,
      ...percentiles(latencies),
    };
  };
  await library(WARMUP);
  const inProcess = await library(REQUESTS);
  await runtime.close();

  // 2. The platform as a subprocess, its default logging on (to a pipe nobody reads).
  server = await startServe({ dataDir: join(work, 'data'), keyFile: join(work, 'key'), token: TOKEN });
  const { url } = server;
  const api = (method, path, body) => server.api(method, path, body).then((r) => r.json());
  await api('PUT', '/api/v1/solutions/crm', { files: { 'functions/rest-get-things.platform': fn } });
  const check = await api('POST', '/api/v1/solutions/crm/functions/rest-get-things/execute', {});
  if (check.status !== 'ok' || check.output.count !== 100)
    throw new Error(`platform answered ${JSON.stringify(check)}`);
  const load = (amount) =>
    loadOn({
      urls: [url],
      path: '/api/v1/solutions/crm/functions/rest-get-things/execute',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
      connections: CONCURRENCY,
      amount,
    });
  await load(WARMUP);
  const cpuBefore = processCpuMs(server.child.pid);
  const result = await load(REQUESTS);
  const cpuMs = (processCpuMs(server.child.pid) - cpuBefore) / REQUESTS;
  if (result.non2xx > 0) throw new Error(`${result.non2xx} answers were not 2xx`);
  const platform = { ...result, cpuMs };

  const line = (name, r) =>
    console.log(
      `${name.padEnd(10)} ${r.perSecond.toFixed(0).padStart(6)}/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`,
    );
  console.log(`${REQUESTS} executions, ${CONCURRENCY} at a time, after ${WARMUP} to warm up`);
  line('library', inProcess);
  line('platform', platform);
  const ratio = platform.perSecond / inProcess.perSecond;
  printFigure({
    id: 'platform-throughput',
    label: 'executions/s through restfn serve / the library in process (concurrency 32)',
    ratio,
    target: '>= 0.8',
    met: meets(ratio, '>= 0.8'),
    // On a machine whose cores the load generator shares, CPU per execution is what the platform costs.
    detail: `${platform.perSecond.toFixed(0)} vs ${inProcess.perSecond.toFixed(0)} per s; CPU per execution ${(platform.cpuMs / inProcess.cpuMs).toFixed(2)}x (server process vs library process)`,
  });
  const added = platform.p50 - inProcess.p50;
  printFigure({
    id: 'platform-p50-added',
    label: 'p50 latency the platform adds, ms (concurrency 32)',
    ratio: added,
    target: '< 1 ms',
    unit: 'ms',
    met: meets(added, '< 1'),
    detail: `p50 ${platform.p50.toFixed(2)} vs ${inProcess.p50.toFixed(2)} ms; p99 ${platform.p99.toFixed(2)} vs ${inProcess.p99.toFixed(2)} ms`,
  });
} finally {
  server?.child.kill('SIGTERM');
  remote.kill();
  rmSync(work, { recursive: true, force: true });
}

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99) };
}
