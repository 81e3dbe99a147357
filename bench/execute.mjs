// Execute path against hand-written baselines: undici request, JSON.parse and the same JSONata
// transform, compiled (a) plainly: `baseline`, the target, and (b) with the guardrails restfn
// always sets (timeout, stack depth, sequence length): `guarded`, to tell restfn's own overhead from
// the guardrails' cost. restfn evaluates this transform directly (src/expression/direct.ts);
// `restfn-jsonata` is restfn with direct evaluation off, every transform through JSONata's
// interpreter as in the baselines: the ratio that shows restfn's own overhead. A GET function with
// a path parameter, a header and an outputTransform over a 100-item JSON response, served by bench/item-server.mjs in its own process.
//
// - throughput: N calls at concurrency C, each variant in its own process (bench/execute-worker.mjs),
//   warmed, rounds in rotating order; ratios per round, median and spread reported. Then, for
//   comparison, the old method: all variants in one process.
// - sequential: 1,000 calls one after the other from a cold process (setup excluded, no warm-up).
// `--quick`: fewer rounds and calls, no `guarded` variant and no one-process comparison.
// Figures: the two (restfn as it runs), and the same two for `restfn-jsonata` (info).
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const quick = process.argv.includes('--quick');
const N = Number(process.env.N ?? (quick ? 1000 : 4000));
const ROUNDS = Number(process.env.ROUNDS ?? (quick ? 3 : 5));
const SEQUENTIAL = 1000;
const TRANSFORM = 'items.{ "id": id, "name": name, "price": price }';
const FILTER = 'items[id > 6].{"id": id, "total": id * 2}';
const worker = new URL('./execute-worker.mjs', import.meta.url).pathname;

const server = fork(new URL('./item-server.mjs', import.meta.url));
const { port } = await new Promise((resolve) => server.once('message', resolve));
const base = `http://127.0.0.1:${port}`;
const root = mkdtempSync(join(tmpdir(), 'restfn-bench-exec-'));
mkdirSync(join(root, 'functions'));
/** A GET of `path` on the item server with a path parameter, a header and `transform`. */
const functionFile = (path, transform) => `provider: DATA_PROVIDER_REST
method: GET
url: ${base}/${path}/{id}
parameters:
  id: { location: path, type: string, required: true }
  x-client: { location: header, type: string, value: bench }
outputTransform: '${transform}'
`;
writeFileSync(join(root, 'functions', 'rest-get-thing.platform'), functionFile('things', TRANSFORM));
writeFileSync(join(root, 'functions', 'rest-get-numbered.platform'), functionFile('numbered', FILTER));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Largest distance of a sample from the median, in % of the median. */
const spread = (xs) => {
  const m = median(xs);
  return Math.max(...xs.map((x) => Math.abs(x - m))) / m;
};
const pct = (x) => `±${(x * 100).toFixed(0)}%`;

function run(variant, mode, count, env = {}) {
  const out = execFileSync(process.execPath, [worker, variant, mode, base, root, String(count)], {
    encoding: 'utf8',
    env: { ...process.env, ...(quick ? { WARMUP: '1000' } : {}), ...env },
  });
  return JSON.parse(out.trim().split('\n').at(-1));
}

/** Rounds of one process per variant, in rotating order so machine noise hits every variant alike. */
function rounds(variants, mode, count) {
  const results = Object.fromEntries(variants.map((v) => [v, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(round + k) % variants.length];
      results[variant].push(run(variant, mode, count));
    }
  }
  const checks = new Set(variants.flatMap((v) => results[v].map((r) => r.check)));
  if (checks.size !== 1) throw new Error(`the variants answered differently: ${[...checks]}`);
  return results;
}

function figure(id, label, ratio, target, met, detail) {
  console.log(
    `@figure ${JSON.stringify({ id, label, ratio: Number(ratio.toFixed(3)), target, met, detail })}`,
  );
}

try {
  const variants = quick
    ? ['baseline', 'restfn', 'restfn-jsonata']
    : ['baseline', 'guarded', 'restfn', 'restfn-jsonata'];

  // Throughput, each variant in its own process.
  const t = rounds(variants, 'throughput', N);
  const perRound = (a, b, key) => t[a].map((r, i) => r[key] / t[b][i][key]);
  console.log(
    `execute: ${N} GETs at concurrency 16, 100-item JSON, outputTransform; each variant in its own process (median of ${ROUNDS} rounds)`,
  );
  for (const name of variants) {
    const rs = t[name];
    console.log(
      `  ${name.padEnd(14)} ${median(rs.map((r) => r.rps))
        .toFixed(0)
        .padStart(
          6,
        )} req/s   p50 ${median(rs.map((r) => r.p50)).toFixed(2)} ms   p99 ${median(rs.map((r) => r.p99)).toFixed(2)} ms   peak RSS ${median(rs.map((r) => r.maxRssMB)).toFixed(0)} MB`,
    );
  }
  const own = perRound('restfn', 'baseline', 'rps');
  console.log(
    `  throughput ratio restfn/baseline: ${median(own).toFixed(2)}x ${pct(spread(own))} (target >= 0.95x)`,
  );
  // CPU time per call of the client process: less sensitive than wall time to a busy machine.
  const cpu = perRound('baseline', 'restfn', 'cpuUs');
  console.log(
    `  CPU per call, baseline/restfn:    ${median(cpu).toFixed(2)}x ${pct(spread(cpu))} (${median(t.restfn.map((r) => r.cpuUs)).toFixed(0)} vs ${median(t.baseline.map((r) => r.cpuUs)).toFixed(0)} µs)`,
  );
  if (!quick) {
    const overhead = perRound('restfn-jsonata', 'guarded', 'rps');
    const guardrails = perRound('guarded', 'baseline', 'rps');
    console.log(
      `  throughput ratio restfn-jsonata/guarded:  ${median(overhead).toFixed(2)}x ${pct(spread(overhead))} (restfn's own overhead)`,
    );
    console.log(
      `  guardrails alone, guarded/baseline: ${median(guardrails).toFixed(2)}x ${pct(spread(guardrails))}`,
    );
    // The old method, for comparison: every variant in one process, sharing V8's feedback and heap.
    const shared = run('shared', 'throughput', N);
    const sharedRatio = (a, b) => median(shared[a].map((r, i) => r / shared[b][i]));
    console.log(
      `  all variants in one process: restfn/baseline ${sharedRatio('restfn', 'baseline').toFixed(2)}x, restfn/guarded ${sharedRatio('restfn', 'guarded').toFixed(2)}x, guarded/baseline ${sharedRatio('guarded', 'baseline').toFixed(2)}x`,
    );
  }
  const ownMedian = median(own);
  figure(
    'execute-throughput',
    'execute throughput, restfn / baseline, each variant in its own process',
    ownMedian,
    '>= 0.95',
    ownMedian >= 0.95,
    `median ${median(t.restfn.map((r) => r.rps)).toFixed(0)} vs ${median(t.baseline.map((r) => r.rps)).toFixed(0)} req/s, ${ROUNDS} rounds, spread ${pct(spread(own))}; CPU per call baseline/restfn ${median(cpu).toFixed(2)}x`,
  );
  const jsonataOnly = perRound('restfn-jsonata', 'baseline', 'rps');
  figure(
    'execute-throughput-jsonata',
    'execute throughput with direct evaluation off (every transform by JSONata) / baseline',
    median(jsonataOnly),
    'info',
    true,
    `median ${median(t['restfn-jsonata'].map((r) => r.rps)).toFixed(0)} vs ${median(t.baseline.map((r) => r.rps)).toFixed(0)} req/s, spread ${pct(spread(jsonataOnly))}: restfn's own overhead`,
  );

  // 1,000 sequential calls from a cold process.
  const s = rounds(variants, 'sequential', SEQUENTIAL);
  const seq = s.restfn.map((r, i) => r.ms / s.baseline[i].ms);
  console.log(
    `execute: ${SEQUENTIAL} sequential calls, cold process, setup excluded (median of ${ROUNDS} rounds)`,
  );
  for (const name of variants)
    console.log(
      `  ${name.padEnd(14)} ${median(s[name].map((r) => r.ms))
        .toFixed(0)
        .padStart(6)} ms`,
    );
  console.log(
    `  time ratio restfn/baseline: ${median(seq).toFixed(2)}x ${pct(spread(seq))} (target <= 1.15x)`,
  );
  if (!quick) {
    const seqGuarded = s.restfn.map((r, i) => r.ms / s.guarded[i].ms);
    console.log(`  time ratio restfn/guarded:  ${median(seqGuarded).toFixed(2)}x ${pct(spread(seqGuarded))}`);
  }
  const seqJsonata = s['restfn-jsonata'].map((r, i) => r.ms / s.baseline[i].ms);
  console.log(
    `  time ratio restfn-jsonata/baseline: ${median(seqJsonata).toFixed(2)}x ${pct(spread(seqJsonata))} (direct evaluation off)`,
  );
  const seqCpu = s.restfn.map((r, i) => r.cpuUs / s.baseline[i].cpuUs);
  console.log(`  CPU ratio restfn/baseline:  ${median(seqCpu).toFixed(2)}x ${pct(spread(seqCpu))}`);
  const seqMedian = median(seq);
  figure(
    'sequential-1000',
    '1,000 sequential calls via the library / the undici+JSONata limit',
    seqMedian,
    '<= 1.15',
    seqMedian <= 1.15,
    `median ${median(s.restfn.map((r) => r.ms)).toFixed(0)} ms vs ${median(s.baseline.map((r) => r.ms)).toFixed(0)} ms, ${ROUNDS} rounds, spread ${pct(spread(seq))}; CPU restfn/baseline ${median(seqCpu).toFixed(2)}x`,
  );
  // Issue 29's two library figures (issue 41's targets): against the plain limit (the projection in
  // JavaScript), and a filter transform against undici + the same compiled JSONata (a filter was
  // outside direct evaluation until issue 41; direct evaluation takes it now).
  const plain = rounds(['plain', 'restfn'], 'sequential', SEQUENTIAL);
  const plainRatio = plain.restfn.map((r, i) => r.ms / plain.plain[i].ms);
  const filtered = rounds(['filter-baseline', 'restfn-filter'], 'sequential', SEQUENTIAL);
  const filterRatio = filtered['restfn-filter'].map((r, i) => r.ms / filtered['filter-baseline'][i].ms);
  console.log(
    `  plain limit (undici + the projection in JavaScript) ${median(plain.plain.map((r) => r.ms)).toFixed(0)} ms, restfn ${median(plain.restfn.map((r) => r.ms)).toFixed(0)} ms: ${median(plainRatio).toFixed(2)}x ${pct(spread(plainRatio))} (target <= 1.10x)`,
  );
  console.log(
    `  ${FILTER}: undici + JSONata ${median(filtered['filter-baseline'].map((r) => r.ms)).toFixed(0)} ms, restfn ${median(filtered['restfn-filter'].map((r) => r.ms)).toFixed(0)} ms: ${median(filterRatio).toFixed(2)}x ${pct(spread(filterRatio))} (target <= 0.95x)`,
  );
  figure(
    'sequential-plain',
    '1,000 sequential calls of a plain projection via the library / the plain limit',
    median(plainRatio),
    '<= 1.10',
    median(plainRatio) <= 1.1,
    `median ${median(plain.restfn.map((r) => r.ms)).toFixed(0)} ms vs ${median(plain.plain.map((r) => r.ms)).toFixed(0)} ms, ${ROUNDS} rounds, spread ${pct(spread(plainRatio))}`,
  );
  figure(
    'sequential-filter',
    '1,000 sequential calls of a filter transform via the library / undici + compiled JSONata',
    median(filterRatio),
    '<= 0.95',
    median(filterRatio) <= 0.95,
    `median ${median(filtered['restfn-filter'].map((r) => r.ms)).toFixed(0)} ms vs ${median(filtered['filter-baseline'].map((r) => r.ms)).toFixed(0)} ms, ${ROUNDS} rounds, spread ${pct(spread(filterRatio))}`,
  );
  figure(
    'sequential-1000-jsonata',
    '1,000 sequential calls with direct evaluation off / the undici+JSONata limit',
    median(seqJsonata),
    'info',
    true,
    `median ${median(s['restfn-jsonata'].map((r) => r.ms)).toFixed(0)} ms vs ${median(s.baseline.map((r) => r.ms)).toFixed(0)} ms, spread ${pct(spread(seqJsonata))}: restfn's own overhead`,
  );
} finally {
  server.kill();
  rmSync(root, { recursive: true, force: true });
}
