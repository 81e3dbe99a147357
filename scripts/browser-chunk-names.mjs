// Names for dist/browser's lazily loaded files that say what they hold. esbuild names a chunk after
// its entry module's file (`dist-RZB4UDUH.js` for @sqlite.org/sqlite-wasm's dist/index.mjs) and every
// shared chunk `chunk-HASH.js`; a person looking at the folder (or at a page's network panel) cannot
// tell SQLite's glue from QuickJS's. Each file whose modules all come from one package group gets the
// group's name in front (`sqlite-wasm-RZB4UDUH.js`, `quickjs-ffi-TAY5YM3W.js`); esbuild's hash is kept.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Package groups by the packages in them: the name a file of theirs takes. */
const GROUPS = [
  ['sqlite-wasm', /^@sqlite\.org\/sqlite-wasm$/],
  ['quickjs', /^(quickjs-emscripten-core|@jitl\/quickjs-.*)$/],
  [
    'fast-xml-parser',
    /^(fast-xml-parser|fast-xml-builder|strnum|anynum|is-unsafe|path-expression-matcher|xml-naming|@nodable\/.*)$/,
  ],
  ['buffer', /^(buffer|base64-js|ieee754)$/],
  ['date-fns', /^date-fns$/],
];
/** esbuild's names that say nothing: a package's `dist/index`, a shared chunk, `cdn.min`. */
const OPAQUE = new Set(['dist', 'index', 'chunk', 'cdn.min', 'fxp']);

/** The package an input of the metafile comes from, or undefined for restfn's own and esbuild's. */
export function packageOf(input) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match?.[1];
}

/** The group every input of an output belongs to, or undefined when they differ or are restfn's. */
export function groupOf(inputs) {
  let found;
  for (const input of inputs) {
    const pkg = packageOf(input);
    const group = pkg && GROUPS.find(([, pattern]) => pattern.test(pkg))?.[0];
    if (!group || (found && found !== group)) return undefined;
    found = group;
  }
  return found;
}

/** `dist/browser/dist-RZB4UDUH.js` -> `sqlite-wasm-RZB4UDUH.js` for each output that gets a new name. */
export function chunkRenames(metafile) {
  const renames = new Map();
  for (const [path, output] of Object.entries(metafile.outputs)) {
    const file = path.split('/').pop();
    const match = /^(.*)-([A-Z0-9]{8})\.js$/.exec(file);
    const group = match && groupOf(Object.keys(output.inputs));
    if (!match || !group || file.startsWith(`${group}-`)) continue;
    const name = OPAQUE.has(match[1]) ? '' : `${match[1].replace(/^emscripten-module\./, '')}-`;
    renames.set(file, `${group}-${name}${match[2]}.js`);
  }
  return renames;
}

/** Renames the files in `dir`, rewrites the imports of them in every output, and the metafile to match. */
export function applyChunkRenames(dir, metafile) {
  const renames = chunkRenames(metafile);
  if (renames.size === 0) return metafile;
  const rename = (file) => renames.get(file) ?? file;
  const files = Object.keys(metafile.outputs)
    .map((p) => p.split('/').pop())
    .filter((f) => f.endsWith('.js'));
  for (const file of files) {
    const path = join(dir, file);
    let text = readFileSync(path, 'utf8');
    // Hashes make each `./name-HASH.js` unique: a plain replacement cannot hit anything else.
    for (const [from, to] of renames) text = text.split(`./${from}`).join(`./${to}`);
    writeFileSync(path, text);
    if (renames.has(file)) renameSync(path, join(dir, rename(file)));
  }
  const renamePath = (p) => p.replace(/[^/]+$/, rename);
  const outputs = {};
  for (const [path, output] of Object.entries(metafile.outputs))
    outputs[renamePath(path)] = {
      ...output,
      imports: output.imports.map((i) => ({ ...i, path: renamePath(i.path) })),
    };
  return { ...metafile, outputs };
}
