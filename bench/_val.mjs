import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parse, parseDocument, visit } from 'yaml';

const root = '/tmp/su/sol';
const files = readdirSync(join(root, 'functions'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.platform'))
  .map((f) => readFileSync(join(root, 'functions', f), 'utf8'));
const { SCHEMAS } = await import('../dist/definition/schema/index.js');
const { loadSolution } = await import('../dist/definition/solution.js');
const { validateSolution } = await import('../dist/definition/validate.js');
function time(label, fn, reps = 3) {
  const ts = [];
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    fn();
    ts.push(performance.now() - t);
  }
  ts.sort((a, b) => a - b);
  console.log(label.padEnd(34), ts.map((t) => t.toFixed(0)).join(' '));
}
time('yaml.parse', () => {
  for (const f of files) parse(f);
});
time('parseDocument+LC+unique', () => {
  for (const f of files)
    parseDocument(f, { lineCounter: new LineCounter(), prettyErrors: false, uniqueKeys: true });
});
const docs = files.map((f) =>
  parseDocument(f, { lineCounter: new LineCounter(), prettyErrors: false, uniqueKeys: true }),
);
time('visit', () => {
  for (const d of docs) visit(d, { Alias() {} });
});
time('toJS', () => {
  for (const d of docs) d.toJS({ maxAliasCount: 100 });
});
const datas = docs.map((d) => d.toJS());
time('zod safeParse', () => {
  for (const d of datas) SCHEMAS.function.safeParse(d);
});
time('loadSolution', () => loadSolution(root));
const s = loadSolution(root);
const t = performance.now();
await validateSolution(s);
console.log('validateSolution'.padEnd(34), (performance.now() - t).toFixed(0));
const t2 = performance.now();
await validateSolution(s);
console.log('validateSolution 2'.padEnd(34), (performance.now() - t2).toFixed(0));
