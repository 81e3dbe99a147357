// Issue 40's size figure: the gzipped bytes a page loads at start from the browser build (index.js,
// worker.js and the chunks they import statically), without SQLite's WebAssembly and its JavaScript
// glue and without QuickJS (scripts/browser-start.mjs says what is counted), against its 150 kB
// budget. Builds dist/browser with its metafile first (a second); npm run bench builds everything.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { largestParts, startSize } from '../scripts/browser-start.mjs';
import { printFigure } from './figures.mjs';

const BUDGET_KB = 150;
const root = new URL('..', import.meta.url).pathname;
execFileSync(
  process.execPath,
  [new URL('../scripts/build-browser.mjs', import.meta.url).pathname, '--meta'],
  {
    stdio: 'inherit',
  },
);
const { files, gzip, meta } = startSize(root);
const kB = (n) => (n / 1000).toFixed(1);
for (const f of files)
  console.log(`  ${f.file.padEnd(28)} ${kB(f.bytes).padStart(7)} kB, ${kB(f.gzip).padStart(6)} kB gzipped`);
const parts = largestParts(
  meta,
  files.map((f) => f.file),
);
console.log(`  largest (minified): ${parts.map(([p, n]) => `${p} ${kB(n)} kB`).join(', ')}`);
console.log(`  start-up total: ${kB(gzip)} kB gzipped (budget ${BUDGET_KB} kB)`);
// Said beside the figure: SQLite (glue and WebAssembly), which is left out.
const gzipOf = (pattern) => {
  const file = readdirSync(join(root, 'dist', 'browser')).find((f) => pattern.test(f));
  return file ? gzipSync(readFileSync(join(root, 'dist', 'browser', file))).length : 0;
};
const sqlite = `${kB(gzipOf(/^sqlite-wasm-.*\.js$/))} kB glue + ${kB(gzipOf(/^sqlite3\.wasm$/))} kB WebAssembly`;
console.log(`  not counted: SQLite ${sqlite}`);
printFigure({
  id: 'browser-start-size',
  label: `browser client loaded at start, gzipped / ${BUDGET_KB} kB budget`,
  ratio: gzip / (BUDGET_KB * 1000),
  target: `<= 1.00 (${BUDGET_KB} kB)`,
  met: gzip <= BUDGET_KB * 1000,
  detail: `${kB(gzip)} kB gzipped in ${files.length} files (JSONata included: loaded when the client opens); not counted: SQLite ${sqlite}`,
});
