// The platform against "the server limit" (issue 29, both workloads since issue 41): `restfn serve`
// against bench/server-limit-server.mjs, the hand-written server for the same job, both as
// subprocesses on the same remote (bench/item-server.mjs, a 100-item JSON body), warmed alike, 32
// connections in a closed loop (bench/load.mjs). Two workloads, each a function of the same solution
// and the same route on the hand-written server:
// - projection: `items.{ "id": id, "name": name, "price": price }`, a plain projection;
// - transform: `{ "count": $count(items), "first": items[0].name }`, which JSONata must evaluate.
// The hand-written server evaluates each with the `jsonata` package and writes one audit row per
// execution. Rounds interleave every (server, workload) pair, their order rotating. Reported for
// each workload: throughput restfn / limit (target >= 0.95) and the p50 restfn adds (< 1 ms).
// RESTFN_BENCH_SERVE_ARGS adds options to `restfn serve` (e.g. `--log-level warn`, for a comparison).
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { meets, printFigure, QUICK } from './figures.mjs';
import { cpuMs, mainThreadMs, median } from './lib.mjs';
import { load } from './load.mjs';
import { itemService, startServe } from './serve.mjs';

const CONCURRENCY = 32;

const REQUESTS = QUICK ? 4_000 : 20_000;
const WARMUP = QUICK ? 5_000 : 10_000;
const ROUNDS = QUICK ? 2 : 3;
const TOKEN = 'rfn_bench_0123456789abcdefghijklmnopqrstuvwxyz';
const THROUGHPUT = '>= 0.95';
const P50_ADDED = '< 1';

/** Each workload: its function (name and outputTransform) and the ids of its figures. */
const WORKLOADS = {
  projection: {
    fn: 'rest-project-things',
    transform: 'items.{ "id": id, "name": name, "price": price }',
    throughput: 'server-limit-throughput',
    p50: 'server-limit-p50-added',
  },
  transform: {
    fn: 'rest-count-things',
    transform: '{ "count": $count(items), "first": items[0].name }',
    throughput: 'server-limit-transform-throughput',
    p50: 'server-limit-transform-p50-added',
  },
};
const SERVERS = ['limit', 'restfn'];

const work = mkdtempSync(join(tmpdir(), 'restfn-bench-limit-'));
const { remote, fn: itemFn } = await itemService();
const remoteUrl = /url: (\S+)/.exec(itemFn)[1];
const functionText = (transform) =>
  `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${remoteUrl}\noutputTransform: '${transform}'\n`;
const files = Object.fromEntries(
  Object.values(WORKLOADS).map((w) => [`functions/${w.fn}.platform`, functionText(w.transform)]),
);

let serve;
let limit;
try {
  serve = await startServe({
    dataDir: join(work, 'data'),
    keyFile: join(work, 'key'),
    token: TOKEN,
    args: (process.env.RESTFN_BENCH_SERVE_ARGS ?? '').split(' ').filter(Boolean),
  });
  const published = await serve.api('PUT', '/api/v1/solutions/crm', { files });
  if (published.status !== 201) throw new Error(`publish answered ${published.status}`);
  const transforms = Object.fromEntries(Object.values(WORKLOADS).map((w) => [w.fn, w.transform]));
  limit = fork(join(import.meta.dirname, 'server-limit-server.mjs'), [
    remoteUrl,
    TOKEN,
    JSON.stringify(transforms),
  ]);
  const { port } = await new Promise((resolve) => limit.once('message', resolve));
  const servers = { restfn: serve.url, limit: `http://127.0.0.1:${port}` };
  const run = (name, workload, amount) =>
    load({
      urls: [servers[name]],
      path: `/api/v1/solutions/crm/functions/${WORKLOADS[workload].fn}/execute`,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
      connections: CONCURRENCY,
      amount,
    });
  // The same answer from both servers for each workload (the output; the rest is the envelope).
  for (const workload of Object.keys(WORKLOADS)) {
    const outputs = [];
    for (const name of SERVERS) {
      const res = await fetch(
        `${servers[name]}/api/v1/solutions/crm/functions/${WORKLOADS[workload].fn}/execute`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: '{}',
        },
      );
      outputs.push(JSON.stringify((await res.json()).output));
    }
    if (outputs[0] !== outputs[1])
      throw new Error(`${workload}: the servers answer differently: ${outputs.join(' / ')}`);
  }
  const pairs = Object.keys(WORKLOADS).flatMap((workload) => SERVERS.map((name) => ({ name, workload })));
  for (const { name, workload } of pairs) {
    const warm = await run(name, workload, WARMUP);
    if (warm.non2xx > 0) throw new Error(`${name} ${workload}: ${warm.non2xx} answers were not 2xx`);
  }
  // CPU time of each server process (all its threads) per execution: steadier than throughput on a
  // busy machine, and what decides throughput when the load generator shares the cores.
  const pids = { restfn: serve.child.pid, limit: limit.pid };
  const results = Object.fromEntries(pairs.map(({ name, workload }) => [`${name} ${workload}`, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Every pair once a round, starting one further along each round.
    const order = pairs.map((_, i) => pairs[(i + round) % pairs.length]);
    for (const { name, workload } of order) {
      const before = cpuMs(pids[name]);
      const mainBefore = mainThreadMs(pids[name]);
      const result = await run(name, workload, REQUESTS);
      if (result.non2xx > 0) throw new Error(`${name} ${workload}: ${result.non2xx} answers were not 2xx`);
      results[`${name} ${workload}`].push({
        ...result,
        cpuUs: ((cpuMs(pids[name]) - before) * 1000) / REQUESTS,
        // The request thread's share: on restfn the rest is the executor worker's, plus V8's and
        // libuv's helper threads (garbage collection, compilation, file writes), which the limit has too.
        mainUs: ((mainThreadMs(pids[name]) - mainBefore) * 1000) / REQUESTS,
      });
    }
  }
  console.log(`${REQUESTS} executions a round, ${ROUNDS} rounds interleaved, ${CONCURRENCY} connections`);
  for (const [workload, w] of Object.entries(WORKLOADS)) {
    const of = (name, key) => median(results[`${name} ${workload}`].map((r) => r[key]));
    console.log(`${workload}: ${w.transform}`);
    for (const name of SERVERS)
      console.log(
        `  ${name.padEnd(7)} ${of(name, 'perSecond').toFixed(0).padStart(6)}/s  p50 ${of(name, 'p50').toFixed(2)} ms  p99 ${of(name, 'p99').toFixed(2)} ms  CPU ${of(name, 'cpuUs').toFixed(0)} µs per execution (main thread ${of(name, 'mainUs').toFixed(0)}, other threads ${(of(name, 'cpuUs') - of(name, 'mainUs')).toFixed(0)})`,
      );
    const ratio = of('restfn', 'perSecond') / of('limit', 'perSecond');
    const restfnRounds = results[`restfn ${workload}`];
    const limitRounds = results[`limit ${workload}`];
    printFigure({
      id: w.throughput,
      label: `restfn serve execute throughput / the server limit, ${workload} (hand-written, 32 connections)`,
      ratio,
      target: THROUGHPUT,
      met: meets(ratio, THROUGHPUT),
      detail: `median ${of('restfn', 'perSecond').toFixed(0)} vs ${of('limit', 'perSecond').toFixed(0)} per s, ${ROUNDS} interleaved rounds; per-round ratios ${restfnRounds.map((r, i) => (r.perSecond / limitRounds[i].perSecond).toFixed(2)).join(', ')}; CPU per execution ${of('restfn', 'cpuUs').toFixed(0)} vs ${of('limit', 'cpuUs').toFixed(0)} µs (main thread ${of('restfn', 'mainUs').toFixed(0)} vs ${of('limit', 'mainUs').toFixed(0)})`,
    });
    const added = of('restfn', 'p50') - of('limit', 'p50');
    printFigure({
      id: w.p50,
      label: `p50 latency restfn serve adds over the server limit, ${workload}, ms (32 connections)`,
      ratio: added,
      target: `${P50_ADDED} ms`,
      unit: 'ms',
      met: meets(added, P50_ADDED),
      detail: `p50 ${of('restfn', 'p50').toFixed(2)} vs ${of('limit', 'p50').toFixed(2)} ms; p99 ${of('restfn', 'p99').toFixed(2)} vs ${of('limit', 'p99').toFixed(2)} ms`,
    });
  }
} finally {
  serve?.child.kill('SIGTERM');
  limit?.kill();
  remote.kill();
  rmSync(work, { recursive: true, force: true });
}
