// Small helpers shared by the benchmarks: timing subprocesses and summarising samples.
import { spawnSync } from 'node:child_process';

/** Runs `node args...` `runs` times; returns wall times in ms (median first, then all). */
export function timeNode(args, { runs = 5, cwd } = {}) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0 && r.status !== 3)
      throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    times.push(ms);
  }
  return { median: median(times), times };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
