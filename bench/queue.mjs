// Push throughput (issue 12): 10,000 queued update commands sent by `runtime.pushQueue()`, against the
// hand-written limit (the same PATCH calls with undici + a SQLite DELETE per command), each variant
// in its own process (bench/queue-worker.mjs), rounds in rotating order, against a local server in
// its own process. Reports commands per second and the ratio restfn / baseline (higher is better).
// `--quick`: 2,000 commands, 3 rounds.
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './lib.mjs';

const quick = process.argv.includes('--quick');
const N = Number(process.env.N ?? (quick ? 2000 : 10_000));
const ROUNDS = Number(process.env.ROUNDS ?? (quick ? 3 : 5));
const worker = new URL('./queue-worker.mjs', import.meta.url).pathname;

const server = fork(new URL('./queue-server.mjs', import.meta.url));
const { port } = await new Promise((resolve) => server.once('message', resolve));
const base = `http://127.0.0.1:${port}`;
const root = mkdtempSync(join(tmpdir(), 'restfn-bench-queue-solution-'));
mkdirSync(join(root, 'functions'));
writeFileSync(
  join(root, 'functions', 'rest-update-item.platform'),
  `provider: DATA_PROVIDER_REST
method: PATCH
url: ${base}/items/{id}
parameters:
  id: { location: path, type: string, required: true }
  name: { location: body, type: string }
`,
);

const run = (variant) =>
  JSON.parse(
    execFileSync(process.execPath, [worker, variant, base, root, String(N)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1),
  );

try {
  const samples = { restfn: [], baseline: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['restfn', 'baseline'] : ['baseline', 'restfn'];
    for (const variant of order) {
      const result = run(variant);
      if (result.sent !== N) throw new Error(`${variant} sent ${result.sent} of ${N}`);
      samples[variant].push(result);
    }
  }
  const perSecond = (r) => (N / r.ms) * 1000;
  const ratios = samples.restfn.map((r, i) => perSecond(r) / perSecond(samples.baseline[i]));
  const cpuRatios = samples.restfn.map((r, i) => samples.baseline[i].cpuMs / r.cpuMs);
  const ratio = median(ratios);
  const spread = Math.max(...ratios.map((x) => Math.abs(x - ratio))) / ratio;
  console.log(`push ${N} queued updates (${ROUNDS} rounds, each variant in its own process)`);
  console.log(`  restfn:   ${median(samples.restfn.map(perSecond)).toFixed(0)} commands/s`);
  console.log(
    `  baseline: ${median(samples.baseline.map(perSecond)).toFixed(0)} commands/s (undici + SQLite DELETE)`,
  );
  console.log(
    `  ratio restfn/baseline: ${ratio.toFixed(2)}x throughput (spread ±${(spread * 100).toFixed(0)}%), CPU per command ${(1 / median(cpuRatios)).toFixed(2)}x`,
  );
  console.log(
    `@figure ${JSON.stringify({ id: 'push-10k', label: `push ${N} queued updates, throughput restfn / baseline`, ratio: Number(ratio.toFixed(3)), target: '(issue 12: reported)', met: true, detail: `${median(samples.restfn.map(perSecond)).toFixed(0)} vs ${median(samples.baseline.map(perSecond)).toFixed(0)} commands/s` })}`,
  );
} finally {
  server.kill();
  rmSync(root, { recursive: true, force: true });
}
