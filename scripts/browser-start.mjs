// What a page loads at start from dist/browser (issue 40's size figure): the page's entry
// (index.js), the client's worker (worker.js), every chunk they import statically and the chunks the
// worker loads when the client opens (AT_OPEN: JSONata), gzipped.
// Left out, as the issue says: SQLite's WebAssembly and its JavaScript glue (the sqlite-wasm chunk)
// and QuickJS (its chunks, loaded only when a solution has expression scripts); the other lazy
// chunks (fast-xml-parser, date-fns's text, ...) are left out because a page does not load them at
// start. Read from the build's metafile (`node scripts/build-browser.mjs --meta`). Used by
// bench/browser-size.mjs and test/browser/bundle.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const ENTRIES = ['index.js', 'worker.js'];
/**
 * Chunks the client's worker loads when it opens (src/browser/worker/session.ts), not at a first
 * use: JSONata, so that an action taken offline later needs no download. Counted with the start.
 */
export const AT_OPEN = /^jsonata-.*\.js$/;
/** Chunks never counted, even if a later change imported them statically: SQLite's and QuickJS's. */
export const UNCOUNTED = /^(sqlite-wasm|quickjs)[-.]/;

/** The outputs of the page's and the worker's builds by file name (`worker.js`), from the metafile. */
export function outputsOf(meta) {
  const outputs = new Map();
  for (const build of Object.values(meta))
    for (const [path, output] of Object.entries(build.outputs))
      if (path.endsWith('.js')) outputs.set(path.split('/').pop(), output);
  return outputs;
}

/** The files a page loads at start: the entries and their static imports, transitively, in load order. */
export function startFiles(meta) {
  const outputs = outputsOf(meta);
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file) || UNCOUNTED.test(file)) return;
    const output = outputs.get(file);
    if (!output) throw new Error(`dist/browser has no ${file} (the metafile is out of date?)`);
    seen.add(file);
    for (const imported of output.imports)
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path.split('/').pop());
  };
  for (const entry of ENTRIES) visit(entry);
  for (const file of outputs.keys()) if (AT_OPEN.test(file)) visit(file);
  return [...seen];
}

/** Each start file's bytes and gzipped bytes (gzip's default level, as a server compresses on the fly). */
export function startSize(root) {
  const meta = JSON.parse(readFileSync(join(root, 'dist', 'browser-meta.json'), 'utf8'));
  const files = startFiles(meta).map((file) => {
    const bytes = readFileSync(join(root, 'dist', 'browser', file));
    return { file, bytes: bytes.length, gzip: gzipSync(bytes).length };
  });
  return { files, gzip: files.reduce((sum, f) => sum + f.gzip, 0), meta };
}

/** The largest packages (or restfn's own folders) in the start files, by minified bytes. */
export function largestParts(meta, files, count = 6) {
  const outputs = outputsOf(meta);
  const parts = new Map();
  for (const file of files)
    for (const [input, { bytesInOutput }] of Object.entries(outputs.get(file).inputs)) {
      const part = input.includes('node_modules/')
        ? input.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')
        : input.replace(/^src\/([^/]+).*/, 'src/$1');
      parts.set(part, (parts.get(part) ?? 0) + bytesInOutput);
    }
  return [...parts].sort((a, b) => b[1] - a[1]).slice(0, count);
}
