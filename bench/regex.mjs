// The cost of running expression regular expressions on a linear-time engine (re2js) and of the
// text-length guards on JSONata's functions (issue 10, items 15 and 16), against a baseline in the
// same run: the same expressions in plain JSONata with the same guardrails, whose regular
// expressions run on V8's backtracking engine. Typical inputs first, then a catastrophic pattern,
// where the baseline needs exponential time and restfn linear time.
import jsonata from 'jsonata';
import { evaluateExpression } from '../dist/expression/evaluate.js';
import { DEFAULT_LIMITS } from '../dist/expression/limits.js';
import { median } from './lib.mjs';

const words = Array.from({ length: 160 }, (_, i) => `word${i}`);
const CASES = [
  [
    '$match (email, groups)',
    '$match($.email, /^([^@]+)@([^.]+)\\.com$/).groups',
    { email: 'jane.doe@example.com' },
  ],
  ['$replace (1 KB text)', '$replace($.text, /\\s+/, " ")', { text: words.join('   \n') }],
  [
    '$split (200 fields)',
    '$split($.line, /,\\s*/)',
    { line: Array.from({ length: 200 }, (_, i) => `f${i}`).join(', ') },
  ],
  [
    '$contains /i (10 KB)',
    '$contains($.text, /fatal error/i)',
    { text: `${'x'.repeat(10_000)} FATAL ERROR` },
  ],
  [
    'no regex: 100 x $uppercase',
    'items.$uppercase(name)',
    { items: words.slice(0, 100).map((name) => ({ name })) },
  ],
];
// --quick (bench/run.mjs passes it to every script): fewer and shorter rounds.
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 7;
const DURATION_MS = quick ? 100 : 150;

const options = {
  timeout: DEFAULT_LIMITS.timeoutMs,
  stack: DEFAULT_LIMITS.maxDepth,
  sequence: DEFAULT_LIMITS.maxSequence,
};

/** Evaluations per second of `run` over about DURATION_MS. */
async function rate(run) {
  let count = 0;
  const started = performance.now();
  while (performance.now() - started < DURATION_MS) {
    await run();
    count++;
  }
  return (count * 1000) / (performance.now() - started);
}

console.log(`regex: expression evaluations per second (median of ${ROUNDS} rounds, rotating order)`);
for (const [name, expr, input] of CASES) {
  const baseline = jsonata(expr, options);
  const runs = {
    baseline: () => baseline.evaluate(input),
    restfn: () => evaluateExpression(expr, input, {}),
  };
  // Same results, or the comparison means nothing.
  const [a, b] = [await runs.baseline(), await runs.restfn()];
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${name}: results differ`);
  for (const run of Object.values(runs)) await rate(run);
  const rates = { baseline: [], restfn: [] };
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['baseline', 'restfn'] : ['restfn', 'baseline'];
    const got = {};
    for (const key of order) got[key] = await rate(runs[key]);
    rates.baseline.push(got.baseline);
    rates.restfn.push(got.restfn);
    ratios.push(got.restfn / got.baseline);
  }
  console.log(
    `  ${name.padEnd(28)} baseline ${median(rates.baseline).toFixed(0).padStart(7)}/s   restfn ${median(rates.restfn).toFixed(0).padStart(7)}/s   ratio ${median(ratios).toFixed(2)}x`,
  );
}

// A catastrophic pattern: V8 backtracks 2^n steps and cannot be interrupted; re2js stays linear.
const hostile = (n) => ({ s: `${'a'.repeat(n)}!` });
const HOSTILE = '$match($.s, /^(a+)+$/)';
const time = async (run) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};
const plain = jsonata(HOSTILE, options);
for (const n of quick ? [20, 23] : [20, 23, 26]) {
  const v8 = await time(() => plain.evaluate(hostile(n)));
  const linear = await time(() => evaluateExpression(HOSTILE, hostile(n), {}));
  console.log(`  ${HOSTILE} on ${n} a's + "!": baseline ${v8.toFixed(0)} ms, restfn ${linear.toFixed(1)} ms`);
}
const big = await time(() => evaluateExpression(HOSTILE, hostile(100_000), {}));
console.log(`  the same on 100,000 a's + "!": restfn ${big.toFixed(0)} ms (the baseline would not finish)`);
