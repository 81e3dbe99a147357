// Sync 100,000 records in 100 pages (continuation by next link) into a whole-table replace, against a
// hand-written baseline in the same run (bench/sync-worker.mjs), plain and with restfn's JSONata
// guardrails (`guarded`), to tell restfn's own overhead from the guardrails' cost. Each run is its own process; wall time
// and peak RSS are reported for both, then restfn's peak RSS at 1,000,000 records (1,000 pages).
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SIZE = 1000;
const worker = new URL('./sync-worker.mjs', import.meta.url).pathname;

async function withServer(total, fn) {
  const server = fork(new URL('./page-server.mjs', import.meta.url), [String(total), String(SIZE)]);
  const { port } = await new Promise((resolve) => server.once('message', resolve));
  try {
    return await fn(`http://127.0.0.1:${port}`);
  } finally {
    server.kill();
  }
}

function solution(dir, base) {
  mkdirSync(join(dir, 'solution', 'functions'), { recursive: true });
  mkdirSync(join(dir, 'solution', 'datasources'), { recursive: true });
  writeFileSync(
    join(dir, 'solution', 'functions', 'rest-get-items.platform'),
    `provider: DATA_PROVIDER_REST
method: GET
url: ${base}/items
parameters:
  page: { location: query, type: int, value: 1 }
outputTransform: 'items.{ "id": id, "name": name, "value": value, "region": region }'
continuation:
  when: =$exists(@ctx.response.body.next) and @ctx.response.body.next != null
  url: =@ctx.response.body.next
`,
  );
  writeFileSync(
    join(dir, 'solution', 'datasources', 'items.platform'),
    'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: items\n      function: rest-get-items\n',
  );
  writeFileSync(
    join(dir, 'solution', 'solution.yaml'),
    'name: bench\nsettings:\n  sync:\n    maxPages: 5000\n',
  );
}

function run(variant, base, dir) {
  const out = execFileSync(process.execPath, [worker, variant, base, dir], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), 'restfn-bench-sync-'));
try {
  const results = await withServer(100_000, async (base) => {
    solution(dir, base);
    const variants = ['baseline', 'guarded', 'restfn'];
    const runs = Object.fromEntries(variants.map((v) => [v, []]));
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < variants.length; k++) {
        const variant = variants[(round + k) % variants.length];
        runs[variant].push(run(variant, base, dir));
      }
    }
    return runs;
  });
  console.log('sync: 100,000 records in 100 pages (next link), whole-table replace (median of 3 runs each)');
  for (const variant of ['baseline', 'guarded', 'restfn']) {
    const rs = results[variant];
    if (rs.some((r) => r.rows !== 100_000)) throw new Error(`${variant} wrote ${rs.map((r) => r.rows)} rows`);
    console.log(
      `  ${variant.padEnd(9)} ${median(rs.map((r) => r.ms))
        .toFixed(0)
        .padStart(6)} ms   peak RSS ${median(rs.map((r) => r.maxRssMB)).toFixed(0)} MB`,
    );
  }
  const ratio = (a, b) => median(results[a].map((r, i) => r.ms / results[b][i].ms)).toFixed(2);
  console.log(`  wall time ratio restfn/baseline: ${ratio('restfn', 'baseline')}x (target <= 1.25x)`);
  console.log(`  wall time ratio restfn/guarded:  ${ratio('restfn', 'guarded')}x (restfn's own overhead)`);
  console.log(`  guardrails alone, guarded/baseline: ${ratio('guarded', 'baseline')}x`);

  const big = await withServer(1_000_000, async (base) => {
    rmSync(join(dir, 'solution'), { recursive: true, force: true });
    rmSync(join(dir, 'restfn.db'), { force: true });
    solution(dir, base);
    return run('restfn', base, dir);
  });
  if (big.rows !== 1_000_000) throw new Error(`1M run wrote ${big.rows} rows`);
  console.log(
    `  restfn at 1,000,000 records (1,000 pages): ${big.ms.toFixed(0)} ms, peak RSS ${big.maxRssMB.toFixed(0)} MB (target < 300 MB)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
