// Sync N records in pages of 1,000 (continuation by next link) into a whole-table replace, against a
// hand-written baseline in the same run (bench/sync-worker.mjs), plain and with restfn's JSONata
// guardrails (`guarded`), to tell the guardrails' cost apart (restfn evaluates this transform directly,
// src/expression/direct.ts, so restfn/guarded is no longer restfn's own overhead). Each run is its
// own process, variants interleaved round by round (the order rotates); wall time, CPU time and peak
// RSS are reported (each variant keeps its database between rounds: from the second round on, a
// re-sync replaces the rows of the one before), then restfn's peak RSS at 1,000,000 records (1,000 pages).
// `--quick`: 30,000 records, 3 rounds, and the memory check at 100,000 records (memory stays flat in
// the number of records, which is what the check is for; the full run uses 1,000,000).
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SIZE = 1000;
const quick = process.argv.includes('--quick');
const RECORDS = quick ? 30_000 : 100_000;
const ROUNDS = quick ? 3 : 5;
const BIG = quick ? 100_000 : 1_000_000;
const RSS_BUDGET_MB = 300;
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
  rmSync(join(dir, 'solution'), { recursive: true, force: true });
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
/** Half the range of `xs`, in percent of their median. */
const spread = (xs) => (((Math.max(...xs) - Math.min(...xs)) / 2 / median(xs)) * 100).toFixed(0);
const figure = (f) => console.log(`@figure ${JSON.stringify(f)}`);

const variants = ['baseline', 'guarded', 'restfn'];
const dir = mkdtempSync(join(tmpdir(), 'restfn-bench-sync-'));
try {
  const runs = await withServer(RECORDS, async (base) => {
    solution(dir, base);
    const runs = Object.fromEntries(variants.map((v) => [v, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < variants.length; k++) {
        const variant = variants[(round + k) % variants.length];
        runs[variant].push(run(variant, base, dir));
      }
    }
    return runs;
  });
  const pages = RECORDS / SIZE;
  console.log(
    `sync: ${RECORDS.toLocaleString('en')} records in ${pages} pages (next link), whole-table replace (median of ${ROUNDS} interleaved runs each, own process each)`,
  );
  for (const variant of variants) {
    const rs = runs[variant];
    if (rs.some((r) => r.rows !== RECORDS)) throw new Error(`${variant} wrote ${rs.map((r) => r.rows)} rows`);
    const ms = rs.map((r) => r.ms);
    console.log(
      `  ${variant.padEnd(9)} wall ${median(ms).toFixed(0).padStart(6)} ms ±${spread(ms)}%   cpu ${median(
        rs.map((r) => r.cpuMs),
      )
        .toFixed(0)
        .padStart(6)} ms   peak RSS ${median(rs.map((r) => r.maxRssMB)).toFixed(0)} MB`,
    );
  }
  // Ratios within a round (same machine load), then their median and spread.
  const ratios = (a, b, key = 'ms') => runs[a].map((r, i) => r[key] / runs[b][i][key]);
  const show = (label, a, b) => {
    const wall = ratios(a, b);
    const cpu = ratios(a, b, 'cpuMs');
    console.log(
      `  ${label.padEnd(40)} wall ${median(wall).toFixed(2)}x ±${spread(wall)}%   cpu ${median(cpu).toFixed(2)}x ±${spread(cpu)}%`,
    );
    return wall;
  };
  const wall = show('restfn/baseline (target <= 1.10x):', 'restfn', 'baseline');
  show('restfn/guarded (direct evaluation):', 'restfn', 'guarded');
  show('guarded/baseline (guardrails alone):', 'guarded', 'baseline');
  const ratio = median(wall);
  figure({
    id: 'sync-100k-wall',
    label: `sync ${RECORDS.toLocaleString('en')} records / ${pages} pages, wall, restfn / hand-written baseline`,
    ratio: Number(ratio.toFixed(2)),
    target: '<= 1.10',
    met: ratio <= 1.1,
    detail: `median ${median(runs.restfn.map((r) => r.ms)).toFixed(0)} ms vs ${median(runs.baseline.map((r) => r.ms)).toFixed(0)} ms, spread ±${spread(wall)}% over ${ROUNDS} rounds`,
  });

  const big = await withServer(BIG, async (base) => {
    solution(dir, base);
    rmSync(join(dir, 'restfn.db'), { force: true });
    return run('restfn', base, dir);
  });
  if (big.rows !== BIG) throw new Error(`${BIG} run wrote ${big.rows} rows`);
  console.log(
    `  restfn at ${BIG.toLocaleString('en')} records (${BIG / SIZE} pages): ${big.ms.toFixed(0)} ms, peak RSS ${big.maxRssMB.toFixed(0)} MB (target < ${RSS_BUDGET_MB} MB)`,
  );
  figure({
    id: 'sync-1m-rss',
    label: `sync ${BIG.toLocaleString('en')} records, peak RSS / ${RSS_BUDGET_MB} MB budget`,
    ratio: Number((big.maxRssMB / RSS_BUDGET_MB).toFixed(2)),
    target: `< 1.00 (${RSS_BUDGET_MB} MB)`,
    met: big.maxRssMB < RSS_BUDGET_MB,
    value: Number(big.maxRssMB.toFixed(0)),
    unit: 'MB',
    detail: `peak RSS ${big.maxRssMB.toFixed(0)} MB at ${BIG.toLocaleString('en')} records, one run${quick ? ' (--quick; the full run uses 1,000,000)' : ''}`,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
