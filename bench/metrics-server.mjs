// The platform of bench/metrics.mjs: `startPlatform` from dist/ in this process, its metrics filled
// with SOLUTIONS x FUNCTIONS series as executions and remote calls would leave them (an execution
// and a request of each function, so the per-function counters and the per-solution histograms
// are all there), then its port told to the parent. Filled in-process: executing 20,000 functions
// through HTTP first would take the bench a minute for no more series.
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startPlatform } from '../dist/platform/serve.js';

const [dataDir, token, solutions, functions, ...args] = process.argv.slice(2);
const platform = await startPlatform({
  port: 0,
  dataDir,
  masterKeyFile: join(dataDir, '..', 'key'),
  env: { ...process.env, RESTFN_ADMIN_TOKEN: token },
  logLevel: 'warn',
  rateLimit: 100_000_000,
  ...(args.includes('--metrics-labels-solution') ? { metricsLabels: 'solution' } : {}),
});
for (let s = 0; s < Number(solutions); s++) {
  for (let f = 0; f < Number(functions); f++) {
    const solution = `solution-${s}`;
    const fn = `rest-get-thing-${f}`;
    platform.metrics.executed(solution, fn, 'ok', 0.012);
    platform.metrics.remoteCall(solution, fn, 0.004, '200');
  }
}
// The longest the request thread was held (1 ms resolution), between two of the parent's asks.
const held = monitorEventLoopDelay({ resolution: 1 });
held.enable();
process.on('message', (ask) => {
  if (ask !== 'loop') return;
  process.send({ loopMaxMs: held.max / 1e6 });
  held.reset();
});
process.send({ url: platform.url });
process.on('disconnect', () => void platform.close().then(() => process.exit(0)));
