// N executions at concurrency C of a GET function (path parameter, header, outputTransform over a
// 100-item JSON response) against hand-written baselines in the same run: undici request, JSON.parse,
// the same JSONata transform, compiled (a) plainly and (b) with the guardrails restfn always sets
// (timeout, stack depth, sequence length). Reports throughput, p50/p99 latency and both ratios:
// (a) is the issue's target; (b) isolates restfn's own overhead from the guardrails' cost.
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsonata from 'jsonata';
import { Agent, request } from 'undici';
import { createRuntime, DEFAULT_LIMITS, loadSolution } from '../dist/index.js';

const N = Number(process.env.N ?? 20_000);
const C = Number(process.env.C ?? 16);
const TRANSFORM = 'items.{ "id": id, "name": name, "price": price }';

const server = fork(new URL('./item-server.mjs', import.meta.url));
const { port } = await new Promise((resolve) => server.once('message', resolve));
const base = `http://127.0.0.1:${port}`;
const root = mkdtempSync(join(tmpdir(), 'restfn-bench-exec-'));
mkdirSync(join(root, 'functions'));
writeFileSync(
  join(root, 'functions', 'rest-get-thing.platform'),
  `provider: DATA_PROVIDER_REST
method: GET
url: ${base}/things/{id}
parameters:
  id: { location: path, type: string, required: true }
  x-client: { location: header, type: string, value: bench }
outputTransform: '${TRANSFORM}'
`,
);

const runtime = createRuntime(loadSolution(root));
const agent = new Agent({ connections: 64 });
const plain = jsonata(TRANSFORM);
const guarded = jsonata(TRANSFORM, {
  timeout: DEFAULT_LIMITS.timeoutMs,
  stack: DEFAULT_LIMITS.maxDepth,
  sequence: DEFAULT_LIMITS.maxSequence,
});

const restfn = (i) => runtime.execute('rest-get-thing', { id: `thing-${i}` });
const baseline = (expression) => async (i) => {
  const res = await request(`${base}/things/${encodeURIComponent(`thing-${i}`)}`, {
    dispatcher: agent,
    headers: { 'x-client': 'bench' },
  });
  const body = JSON.parse(await res.body.text());
  if (res.statusCode >= 400) throw new Error(`status ${res.statusCode}`);
  return expression.evaluate(body);
};

async function measure(run, count) {
  const latencies = new Float64Array(count);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await run(i);
        latencies[i] = performance.now() - t;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort();
  return {
    rps: count / seconds,
    p50: latencies[Math.floor(count * 0.5)],
    p99: latencies[Math.floor(count * 0.99)],
  };
}

try {
  // Warm both paths (JIT, connection pools, expression caches), then alternate to spread machine noise.
  const runs = { baseline: baseline(plain), guarded: baseline(guarded), restfn };
  const names = Object.keys(runs);
  const results = Object.fromEntries(names.map((name) => [name, []]));
  for (const run of Object.values(runs)) await measure(run, 2000);
  // Many short rounds in rotating order, so machine noise hits every variant alike; ratios are taken
  // per round and the median reported.
  const ROUNDS = 10;
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      results[name].push(await measure(runs[name], Math.round(N / ROUNDS)));
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const summary = (rs) => ({
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
  });
  const ratio = (a, b) => median(results[a].map((r, i) => r.rps / results[b][i].rps));
  const line = (name) => {
    const x = summary(results[name]);
    return `  ${name.padEnd(9)} ${x.rps.toFixed(0).padStart(6)} req/s   p50 ${x.p50.toFixed(2)} ms   p99 ${x.p99.toFixed(2)} ms`;
  };
  console.log(
    `execute: ${N} GETs at concurrency ${C}, 100-item JSON, outputTransform (median of ${ROUNDS} rounds)`,
  );
  for (const name of names) console.log(line(name));
  console.log(
    `  throughput ratio restfn/baseline: ${ratio('restfn', 'baseline').toFixed(2)}x (target >= 0.85x)`,
  );
  console.log(
    `  throughput ratio restfn/guarded:  ${ratio('restfn', 'guarded').toFixed(2)}x (restfn's own overhead)`,
  );
  console.log(`  guardrails alone, guarded/baseline: ${ratio('guarded', 'baseline').toFixed(2)}x`);
} finally {
  await runtime.close();
  await agent.close();
  server.kill();
  rmSync(root, { recursive: true, force: true });
}
