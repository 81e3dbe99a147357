// `restfn validate` on a generated solution of 1,000 function files, start-up included, against a
// baseline in the same run: a bare Node script that only reads and parses the same files with `yaml`.
// The ratio says what schema, rules and expression compilation cost on top of reading YAML. Each
// run is a fresh process; the two alternate round by round. Figure validate-1000.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, meets, printFigure, QUICK, ratioOf, timeProcess } from './figures.mjs';

const FILES = Number(process.env.FILES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? (QUICK ? 3 : 7));
const TARGET = '<= 1.15';
const root = mkdtempSync(join(tmpdir(), 'restfn-bench-'));
try {
  writeFileSync(join(root, 'solution.yaml'), 'name: bench\n');
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, 'functions', `group-${i % 20}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `rest-get-thing-${i}.platform`), functionFile(i));
  }
  const cli = new URL('../dist/bin/restfn.js', import.meta.url).pathname;
  const baseline = new URL('./yaml-baseline.mjs', import.meta.url).pathname;
  const samples = await interleaved(
    {
      restfn: () => timeProcess([cli, 'validate', '--solution', root]),
      baseline: () => timeProcess([baseline, root]),
    },
    ROUNDS,
  );
  const r = ratioOf(samples.restfn, samples.baseline);
  console.log(`validate ${FILES} files (${ROUNDS} interleaved rounds, medians, start-up included)`);
  console.log(`  restfn validate: ${r.subjectMs.toFixed(0)} ms`);
  console.log(`  baseline (read + yaml.parse only): ${r.baselineMs.toFixed(0)} ms`);
  console.log(`  ratio restfn/baseline: ${r.ratio.toFixed(2)}x (spread ±${(r.spread * 100).toFixed(0)}%)`);
  printFigure({
    id: 'validate-1000',
    label: `restfn validate of ${FILES} files / read + yaml.parse`,
    ratio: r.ratio,
    target: TARGET,
    met: meets(r.ratio, TARGET),
    detail: r.detail,
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}

function functionFile(i) {
  return `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/things/{id}
parameters:
  id:
    location: path
    type: string
    required: true
  limit:
    location: query
    type: number
    value: =@ctx.solution.settings.custom.limit
  x-api-key:
    location: header
    type: secret
    value: api-key-${i % 7}
outputTransform: '{ "id": id, "name": name, "count": $count(items) }'
forRowsWithMatchingIds: true
error:
  - when: =@ctx.response.status = 403
    title: Not allowed ${i}
  - when: =@ctx.response.status = 429
    retry:
      delay: 5000
      maxRetries: 3
`;
}
