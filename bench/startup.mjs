// Start-up of the CLI against Node's own (`node -e 0`), each command a fresh process, interleaved
// round by round: `restfn --help`, `restfn validate` of a one-function solution, and `restfn run` of
// one GET against a loopback server (start-up, loading and validating the solution, the call, the
// output). Figures help-startup, validate-startup and run-startup. The first run of a command
// writes its code cache (src/cli/command-bundle.ts): one unmeasured run of each comes first.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, meets, printFigure, QUICK, ratioOf, timeProcess } from './figures.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? (QUICK ? 5 : 11));
const cli = new URL('../dist/bin/restfn.js', import.meta.url).pathname;

const body = JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const root = mkdtempSync(join(tmpdir(), 'restfn-bench-startup-'));
try {
  writeFileSync(join(root, 'solution.yaml'), 'name: startup\n');
  mkdirSync(join(root, 'functions'));
  writeFileSync(
    join(root, 'functions', 'rest-get-items.platform'),
    `provider: DATA_PROVIDER_REST
method: GET
url: http://127.0.0.1:${server.address().port}/items
parameters:
  limit: { location: query, type: int, value: 20 }
outputTransform: 'items.{ "id": id, "name": name }'
`,
  );
  const commands = {
    help: [cli, '--help'],
    validate: [cli, 'validate', '--solution', root],
    run: [cli, 'run', 'rest-get-items', '--solution', root],
  };
  for (const args of Object.values(commands)) await timeProcess(args);
  const samples = await interleaved(
    {
      node: () => timeProcess(['-e', '0']),
      help: () => timeProcess(commands.help),
      validate: () => timeProcess(commands.validate),
      run: () => timeProcess(commands.run),
    },
    ROUNDS,
  );
  console.log(`start-up (fresh process each, ${ROUNDS} interleaved rounds, medians)`);
  console.log(`  node -e 0: ${ratioOf(samples.node, samples.node).subjectMs.toFixed(0)} ms`);
  const figures = [
    ['help-startup', 'restfn --help / node -e 0', samples.help, '<= 1.2'],
    [
      'validate-startup',
      'restfn validate of a one-function solution / node -e 0',
      samples.validate,
      '<= 1.6',
    ],
    ['run-startup', 'restfn run of one GET (loopback) / node -e 0', samples.run, '<= 2.0'],
  ];
  for (const [id, label, subject, target] of figures) {
    const r = ratioOf(subject, samples.node);
    console.log(
      `  ${label}: ${r.subjectMs.toFixed(0)} ms, ${r.ratio.toFixed(2)}x (spread ±${(r.spread * 100).toFixed(0)}%)`,
    );
    printFigure({ id, label, ratio: r.ratio, target, met: meets(r.ratio, target), detail: r.detail });
  }
} finally {
  server.close();
  rmSync(root, { recursive: true, force: true });
}
