// Small helpers shared by the benchmarks: timing subprocesses and summarising samples.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/** CPU time (user + system) of a process and all its threads so far, in ms (Linux's /proc). */
export function cpuMs(pid) {
  return statMs(`/proc/${pid}/stat`);
}

/** CPU time so far of a process's main thread (its thread id is the process's), in ms. */
export function mainThreadMs(pid) {
  return statMs(`/proc/${pid}/task/${pid}/stat`);
}

/** Resident memory of a process in MB (Linux's /proc). */
export function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** utime + stime of a /proc stat file, in ms (clock ticks of 10 ms). */
function statMs(file) {
  const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
