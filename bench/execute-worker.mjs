// One measured variant of bench/execute.mjs in its own process (as real use runs one of them), or
// all of them in one process (`shared`, the old method, where the variants share V8's feedback).
// Prints one JSON line. usage: node execute-worker.mjs VARIANT MODE BASE_URL DIR COUNT
//   VARIANT: baseline | guarded | restfn | restfn-jsonata (direct evaluation off: every transform by
//   JSONata's interpreter, restfn's own overhead) | plain (the projection written in JavaScript:
//   the plain limit) | filter-baseline, restfn-filter (a filter transform, FILTER, on
//   /numbered/; evaluated directly since issue 41) | shared
//   MODE: throughput (COUNT calls at concurrency C after a warm-up) | sequential (COUNT calls one
//   after the other from a cold start: no warm-up, setup excluded)
import jsonata from 'jsonata';
import { Agent, request } from 'undici';
// Every variant loads every module before its clock starts.
import { setDirectEvaluation } from '../dist/expression/direct.js';
import { createRuntime, DEFAULT_LIMITS, loadSolution } from '../dist/index.js';

const TRANSFORM = 'items.{ "id": id, "name": name, "price": price }';
const FILTER = 'items[id > 6].{"id": id, "total": id * 2}';
const C = Number(process.env.C ?? 16);
// restfn runs more code than the baseline, which V8 needs longer to optimise: a short warm-up
// measures the JIT, not the steady state (300 calls gave 0.5-0.7x where 2,000 gave ~1.0x).
const WARMUP = Number(process.env.WARMUP ?? 2000);

const [variant, mode, base, dir, countText] = process.argv.slice(2);
const count = Number(countText);

const setups = {
  baseline: () => hand('things', jsonata(TRANSFORM)),
  guarded: () =>
    hand(
      'things',
      jsonata(TRANSFORM, {
        timeout: DEFAULT_LIMITS.timeoutMs,
        stack: DEFAULT_LIMITS.maxDepth,
        sequence: DEFAULT_LIMITS.maxSequence,
      }),
    ),
  plain: () =>
    hand('things', {
      evaluate: (body) => body.items.map((item) => ({ id: item.id, name: item.name, price: item.price })),
    }),
  restfn: () => restfn('rest-get-thing'),
  'restfn-jsonata': () => {
    setDirectEvaluation(false);
    return restfn('rest-get-thing');
  },
  'filter-baseline': () => hand('numbered', jsonata(FILTER)),
  'restfn-filter': () => restfn('rest-get-numbered'),
};

function restfn(name) {
  const runtime = createRuntime(loadSolution(dir));
  return {
    run: async (i) => (await runtime.execute(name, { id: `thing-${i}` })).output,
    close: () => runtime.close(),
  };
}

/** The hand-written limit: undici request, JSON.parse, the transform. */
function hand(path, expression) {
  const agent = new Agent({ connections: 64 });
  return {
    run: async (i) => {
      const res = await request(`${base}/${path}/${encodeURIComponent(`thing-${i}`)}`, {
        dispatcher: agent,
        headers: { 'x-client': 'bench' },
      });
      const body = JSON.parse(await res.body.text());
      if (res.statusCode >= 400) throw new Error(`status ${res.statusCode}`);
      return expression.evaluate(body);
    },
    close: () => agent.close(),
  };
}

async function throughput(run, n) {
  const latencies = new Float64Array(n);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await run(i);
        latencies[i] = performance.now() - t;
      }
    }),
  );
  const ms = performance.now() - started;
  latencies.sort();
  return {
    rps: (n * 1000) / ms,
    ms,
    p50: latencies[Math.floor(n * 0.5)],
    p99: latencies[Math.floor(n * 0.99)],
  };
}

async function sequential(run, n) {
  const started = performance.now();
  for (let i = 0; i < n; i++) await run(i);
  const ms = performance.now() - started;
  return { ms, rps: (n * 1000) / ms };
}

const measure = mode === 'sequential' ? sequential : throughput;
let result;
if (variant === 'shared') {
  // The old method: all variants in this one process, each warmed, then rounds in rotating order.
  const names = ['baseline', 'guarded', 'restfn'];
  const variants = names.map((name) => setups[name]());
  for (const v of variants) await throughput(v.run, WARMUP);
  const rounds = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < 3; round++) {
    for (let k = 0; k < names.length; k++) {
      const at = (round + k) % names.length;
      rounds[names[at]].push((await throughput(variants[at].run, Math.round(count / 3))).rps);
    }
  }
  result = Object.fromEntries(names.map((name) => [name, rounds[name]]));
  for (const v of variants) await v.close();
} else {
  const v = setups[variant]();
  if (mode !== 'sequential') await throughput(v.run, WARMUP);
  const cpu = process.cpuUsage();
  result = await measure(v.run, count);
  // CPU time of this process per call: steadier than wall time on a busy machine.
  const used = process.cpuUsage(cpu);
  result.cpuUs = (used.user + used.system) / count;
  // The same answer from every variant, or the comparison means nothing.
  result.check = JSON.stringify(await v.run(0)).length;
  await v.close();
}
console.log(JSON.stringify({ variant, mode, ...result, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
