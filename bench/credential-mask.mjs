// Issue 36's figure: what keeping secrets out of answers costs. The same function (a GET of a
// 100-item JSON body, reshaped) runs through `restfn serve` with and without a credential: with one,
// the response is scrubbed as it comes in (bytes, then the parsed body) and the whole answer again at
// the worker's edge. Closed loop, 32 connections, rounds interleaved.
// Reported: executions/s with a credential / without (target >= 0.85).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, meets, printFigure, QUICK, ratioOf } from './figures.mjs';
import { load } from './load.mjs';
import { itemService, startServe } from './serve.mjs';

const CONCURRENCY = 32;
const REQUESTS = QUICK ? 2_000 : 8_000;
const ROUNDS = QUICK ? 2 : 4;
const TOKEN = 'rfn_bench_0123456789abcdefghijklmnopqrstuvwxyz';

const work = mkdtempSync(join(tmpdir(), 'restfn-bench-mask-'));
const { remote, fn } = await itemService();
let server;
try {
  server = await startServe({ dataDir: join(work, 'data'), keyFile: join(work, 'key'), token: TOKEN });
  const api = (method, path, body) => server.api(method, path, body).then((r) => r.json());
  // The keyed function's service gets the key in a header; the answer is the same 100 items.
  const keyed = fn.replace(
    'outputTransform:',
    'parameters:\n  x-api-key: { location: header, type: secret, value: key }\noutputTransform:',
  );
  const published = await api('PUT', '/api/v1/solutions/crm', {
    files: { 'functions/rest-plain.platform': fn, 'functions/rest-keyed.platform': keyed },
  });
  if (published.version === undefined) throw new Error(`publish answered ${JSON.stringify(published)}`);
  const stored = await api('PUT', '/api/v1/solutions/crm/credentials/key', {
    kind: 'secret',
    value: 'bench-key-0123456789abcdef',
  });
  if (!stored.origins) throw new Error(`credential answered ${JSON.stringify(stored)}`);
  const run = (name) => async () => {
    const started = performance.now();
    const result = await load({
      urls: [server.url],
      path: `/api/v1/solutions/crm/functions/${name}/execute`,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
      connections: CONCURRENCY,
      amount: REQUESTS,
    });
    if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} answers were not 2xx`);
    return performance.now() - started;
  };
  const samples = await interleaved({ plain: run('rest-plain'), keyed: run('rest-keyed') }, ROUNDS);
  // Time per batch: keyed / plain is the inverse of the throughput ratio.
  const { ratio, detail } = ratioOf(samples.keyed, samples.plain);
  const throughput = 1 / ratio;
  console.log(`${REQUESTS} executions a round, ${CONCURRENCY} at a time: ${detail}`);
  printFigure({
    id: 'credential-mask-throughput',
    label: 'executions/s of a function with a credential / without (masking, restfn serve)',
    ratio: throughput,
    target: '>= 0.85',
    met: meets(throughput, '>= 0.85'),
    detail,
  });
} finally {
  server?.child.kill('SIGTERM');
  remote.kill();
  rmSync(work, { recursive: true, force: true });
}
