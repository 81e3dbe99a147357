// Runs every benchmark (npm run bench builds first), each script in its own process, and ends with
// one table of the target figures (issue 29's first, then what else the scripts report), from the `@figure {json}` lines the scripts print (see
// bench/figures.mjs). `--quick` is passed to every script (fewer rounds and records: a before/after
// check in under 2 minutes). Names select scripts: `node bench/run.mjs --quick startup validate`.
// One script can also run alone: node bench/NAME.mjs [--quick]
import { spawn } from 'node:child_process';

const SCRIPTS = [
  'startup',
  'validate',
  'execute',
  'regex',
  'sync',
  'queue',
  'platform',
  'tenants',
  'metrics',
  'server-limit',
  'credential-mask',
  'isolation',
  'cluster',
  'console',
  'language',
  'browser-size',
];

/** Issue 29's target table, in its order: what a figure is when no script reported it. */
const FIGURES = [
  [
    'server-limit-throughput',
    'restfn serve execute throughput / the server limit, projection, 32 connections',
    '>= 0.95',
  ],
  ['server-limit-p50-added', '  p50 latency restfn serve adds over the server limit, projection', '< 1 ms'],
  [
    'server-limit-transform-throughput',
    'restfn serve execute throughput / the server limit, JSONata transform, 32 connections',
    '>= 0.95',
  ],
  [
    'server-limit-transform-p50-added',
    '  p50 latency restfn serve adds over the server limit, JSONata transform',
    '< 1 ms',
  ],
  [
    'sequential-plain',
    '1,000 sequential calls of a plain projection via the library / the plain limit',
    '<= 1.10',
  ],
  [
    'sequential-filter',
    '1,000 sequential calls of a filter transform / undici + compiled JSONata',
    '<= 0.95',
  ],
  ['run-startup', 'restfn run of one GET / node -e 0', '<= 2.0'],
  ['validate-startup', 'restfn validate of a one-function solution / node -e 0', '<= 1.6'],
  ['validate-1000', 'restfn validate of 1,000 files / read + yaml.parse', '<= 1.15'],
  ['help-startup', 'restfn --help / node -e 0', '<= 1.2'],
  ['sync-100k-wall', 'sync 100k records / 100 pages, wall, restfn / hand-written', '<= 1.10'],
  ['sync-1m-rss', 'sync 1M records, peak RSS', '< 300 MB'],
];

const args = process.argv.slice(2);
const passed = args.filter((a) => a.startsWith('-'));
const wanted = args.filter((a) => !a.startsWith('-'));
for (const name of wanted) if (!SCRIPTS.includes(name)) throw new Error(`no bench script '${name}'`);

const started = performance.now();
const reported = new Map();
const failed = [];
for (const name of wanted.length > 0 ? wanted : SCRIPTS) {
  const code = await runScript(name, (figure) => reported.set(figure.id, { ...figure, script: name }));
  if (code !== 0) failed.push(`${name} (exit ${code})`);
}
const seconds = ((performance.now() - started) / 1000).toFixed(0);
console.log(
  `\ntarget figures (issue 29 first, then the others reported; ${passed.includes('--quick') ? 'quick, ' : ''}${seconds} s in all)`,
);
printTable(
  [
    ...FIGURES.map(([id]) => id),
    ...[...reported.keys()].filter((id) => !FIGURES.some(([f]) => f === id)),
  ].map((id) => {
    const known = FIGURES.find(([f]) => f === id);
    const f = reported.get(id);
    if (!f) return [known[1], 'not measured', known[2], '-', ''];
    // The wording for its own figures, so that tables of different runs line up.
    return [
      known?.[1] ?? f.label ?? id,
      f.unit === 'ms' ? `${f.ratio.toFixed(2)} ms` : formatRatio(f.ratio),
      f.target,
      f.met ? 'yes' : 'NO',
      f.detail ?? '',
    ];
  }),
);
if (failed.length > 0) {
  console.log(`\nfailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}

/** Runs bench/NAME.mjs with the passed options, echoing its lines and handing over its figures. */
function runScript(name, onFigure) {
  console.log(`\n== ${name}`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [new URL(`./${name}.mjs`, import.meta.url).pathname, ...passed], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let pending = '';
    const line = (text) => {
      if (!text.startsWith('@figure ')) return void console.log(text);
      try {
        onFigure(JSON.parse(text.slice('@figure '.length)));
      } catch {
        console.log(`(unreadable figure line) ${text}`);
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const text of lines) line(text);
    });
    child.on('close', (code, signal) => {
      if (pending) line(pending);
      resolve(code ?? signal);
    });
  });
}

function formatRatio(ratio) {
  return typeof ratio === 'number' ? `${ratio.toFixed(2)}x` : String(ratio);
}

function printTable(rows) {
  const header = ['figure', 'now', 'target', 'met?', 'detail'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
  const format = (r) => `| ${r.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  console.log(format(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(format(r));
}
