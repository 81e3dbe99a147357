// Issue 24's figures: what one solution's author can do to the others. Solution B's executions and
// /healthz are timed (p99) through `restfn serve` while solution A, on the same server, keeps
// 1) a script spinning at its time ceiling, 2) a long JSONata loop at its expression ceiling, and
// 3) publishing a heavy upload (seconds of YAML to validate), and once with A idle for comparison.
// Target: p99 of B and of /healthz under 50 ms whatever A does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { meets, printFigure, QUICK } from './figures.mjs';
import { load } from './load.mjs';
import { itemService, startServe, stopServe } from './serve.mjs';

const TOKEN = 'rfn_bench_0123456789abcdefghijklmnopqrstuvwxyz';
const B_REQUESTS = QUICK ? 400 : 2_000;
const HEALTH_REQUESTS = QUICK ? 200 : 1_000;
/** A's executions in flight at once (a solution publishes one upload at a time). */
const A_CONCURRENCY = 4;

const work = mkdtempSync(join(tmpdir(), 'restfn-bench-isolation-'));
const { remote, fn } = await itemService();
const url = /url: (\S+)/.exec(fn)[1];
let server;
try {
  server = await startServe({ dataDir: join(work, 'data'), keyFile: join(work, 'key'), token: TOKEN });
  const api = async (method, path, body) => {
    const res = await server.api(method, path, body);
    return { status: res.status, body: await res.json() };
  };
  const published = [
    await api('PUT', '/api/v1/solutions/b', { files: { 'functions/rest-get-things.platform': fn } }),
    await api('PUT', '/api/v1/solutions/a', {
      files: {
        'functions/rest-spin.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}\noutputTransform: '$s.spin(1)'\n`,
        'functions/rest-loop.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}\noutputTransform: '$reduce([1..1000000], function($a, $v) { $a + $v })'\n`,
        'scripts/expressions/s.js': 'export function spin(n) { for (;;) {} return n; }\n',
      },
    }),
  ];
  for (const p of published)
    if (p.status !== 201) throw new Error(`publish answered ${JSON.stringify(p.body)}`);

  let uploads = 0;
  const heavyUpload = () => {
    const parameters = Array.from({ length: 20_000 }, (_, i) => `  p${i}: { location: query, type: string }`);
    // A new upload each time (an unchanged one is not validated again).
    const file = `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}?u=${uploads++}\nparameters:\n${parameters.join('\n')}\n`;
    return { files: { 'functions/rest-heavy-1.platform': file, 'functions/rest-heavy-2.platform': file } };
  };
  const activities = {
    idle: undefined,
    'spinning script': { run: () => api('POST', '/api/v1/solutions/a/functions/rest-spin/execute', {}) },
    'JSONata loop': { run: () => api('POST', '/api/v1/solutions/a/functions/rest-loop/execute', {}) },
    'heavy publish': { run: () => api('PUT', '/api/v1/solutions/a', heavyUpload()), at: 1 },
  };

  // Warm B's worker and runtime first.
  await load(bLoad(server.url, 500));
  for (const [name, activity] of Object.entries(activities)) {
    let running = activity !== undefined;
    let aDone = 0;
    const aLoops = running
      ? Array.from({ length: activity.at ?? A_CONCURRENCY }, async () => {
          while (running) {
            await activity.run();
            aDone++;
          }
        })
      : [];
    const [b, health] = await Promise.all([load(bLoad(server.url, B_REQUESTS)), healthz(server.url)]);
    running = false;
    await Promise.all(aLoops);
    if (b.non2xx > 0) throw new Error(`${b.non2xx} of B's answers were not 2xx while A: ${name}`);
    console.log(
      `A ${name.padEnd(16)} B p50 ${b.p50.toFixed(2)} ms p99 ${b.p99.toFixed(2)} ms (${b.perSecond.toFixed(0)}/s); /healthz p99 ${health.p99.toFixed(2)} ms; A's ${aDone} done`,
    );
    if (activity === undefined) continue;
    const worst = Math.max(b.p99, health.p99);
    printFigure({
      id: `isolation-${name.replaceAll(' ', '-').toLowerCase()}`,
      label: `p99 of B's executions and /healthz while A runs a ${name}, ms`,
      ratio: worst,
      target: '< 50 ms',
      unit: 'ms',
      met: meets(worst, '< 50'),
      detail: `B p99 ${b.p99.toFixed(1)} ms, /healthz p99 ${health.p99.toFixed(1)} ms; A finished ${aDone}`,
    });
  }
} finally {
  await stopServe(server?.child);
  remote.kill();
  rmSync(work, { recursive: true, force: true });
}

function bLoad(base, amount) {
  return {
    urls: [base],
    path: '/api/v1/solutions/b/functions/rest-get-things/execute',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
    connections: 4,
    amount,
  };
}

/** /healthz, one request after another. */
async function healthz(base) {
  const latencies = [];
  for (let i = 0; i < HEALTH_REQUESTS; i++) {
    const t = performance.now();
    const res = await fetch(`${base}/healthz`);
    await res.arrayBuffer();
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  return { p99: latencies[Math.floor(0.99 * latencies.length)] };
}
