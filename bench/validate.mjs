// `restfn validate` on a generated solution of 1,000 function files, start-up included, against a
// baseline in the same run: a bare Node script that only reads and parses the same files with `yaml`.
// The ratio says what schema, rules and expression compilation cost on top of reading YAML.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timeNode } from './lib.mjs';

const FILES = Number(process.env.FILES ?? 1000);
const root = mkdtempSync(join(tmpdir(), 'restfn-bench-'));
try {
  writeFileSync(join(root, 'solution.yaml'), 'name: bench\n');
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, 'functions', `group-${i % 20}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `rest-get-thing-${i}.platform`), functionFile(i));
  }
  const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
  const baseline = new URL('./yaml-baseline.mjs', import.meta.url).pathname;
  const restfn = timeNode([cli, 'validate', '--solution', root]);
  const plain = timeNode([baseline, root]);
  console.log(`validate ${FILES} files (median of 5, start-up included)`);
  console.log(`  restfn validate: ${restfn.median.toFixed(0)} ms`);
  console.log(`  baseline (read + yaml.parse only): ${plain.median.toFixed(0)} ms`);
  console.log(`  ratio restfn/baseline: ${(restfn.median / plain.median).toFixed(2)}x`);
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
