// The bench output contract: every script keeps its human-readable lines and adds one `@figure {json}`
// line per figure of issue 11's target table it measures; bench/run.mjs collects them into one table.
// Also the interleaved subprocess timing the start-up and validate figures use.
import { spawn } from 'node:child_process';
import { median } from './lib.mjs';

/** `--quick` (fewer rounds and records, so that `npm run bench -- --quick` stays under 2 minutes). */
export const QUICK = process.argv.includes('--quick');

/**
 * Prints one figure: `ratio` is the measured ratio, `target` as written in the issue ("<= 1.15"),
 * `met` whether the ratio meets it, `detail` the medians and spread behind the ratio.
 */
export function printFigure({ id, label, ratio, target, met, detail, unit }) {
  const figure = {
    id,
    label,
    ratio: Number(ratio.toFixed(3)),
    target,
    met,
    detail,
    ...(unit ? { unit } : {}),
  };
  console.log(`@figure ${JSON.stringify(figure)}`);
}

/** Whether `value` meets a target written as "<= 1.15", "< 300", ">= 0.95" or "> 1". */
export function meets(value, target) {
  const [, op, limit] = /^\s*(<=|>=|<|>)\s*([\d.]+)/.exec(target) ?? [];
  if (!op) throw new Error(`cannot read the target '${target}'`);
  const n = Number(limit);
  return op === '<=' ? value <= n : op === '>=' ? value >= n : op === '<' ? value < n : value > n;
}

/** Wall time in ms of `node ...args` in a fresh process; throws when it fails. */
export function timeProcess(args, { cwd, expectCode = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === expectCode) resolve(ms);
      else reject(new Error(`node ${args.join(' ')} exited with ${code}: ${stderr}`));
    });
  });
}

/**
 * Times each variant (`{ name: () => Promise<ms> }`) once per round, in an order that rotates from
 * round to round, after one untimed warm-up round (disk cache, lazy compilation of node itself).
 * Returns each variant's samples, in round order, so that ratios can be taken within a round.
 */
export async function interleaved(variants, rounds) {
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (const name of names) await variants[name]();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length];
      samples[name].push(await variants[name]());
    }
  }
  return samples;
}

/**
 * The ratio of `subject` to `baseline` as the median of the per-round ratios (a round's two runs see
 * the same machine load), with the spread of those ratios around it, and both medians in ms.
 */
export function ratioOf(subject, baseline) {
  const ratios = subject.map((s, i) => s / baseline[i]);
  const ratio = median(ratios);
  const spread = Math.max(...ratios.map((r) => Math.abs(r - ratio))) / ratio;
  return {
    ratio,
    spread,
    subjectMs: median(subject),
    baselineMs: median(baseline),
    detail: `median ${median(subject).toFixed(0)} ms vs ${median(baseline).toFixed(0)} ms, ${ratios.length} rounds, per-round ratios ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)} (spread ±${(spread * 100).toFixed(0)}%)`,
  };
}
