// Builds the browser client (issue 40) into dist/browser/: index.js (the page's entry, createClient),
// worker.js (the client's worker: SQLite WebAssembly, the runtime), their lazily loaded chunks
// (SQLite's glue, QuickJS for expression scripts, date-fns's text, fast-xml-parser and the HTTP call
// step for useLocalCall functions), the page's TypeScript declarations (types/) and the WebAssembly
// files beside them. Nothing in it imports a bare specifier or a Node built-in, so a page imports
// /restfn/client/index.js with that folder served there; bundlers import `restfn/client` (package
// exports).
//
// The library's own modules run in the worker as they are. A module with Node-only code has a
// sibling `X.browser.ts` (the same exports, for the browser) that this build uses instead of `X.ts`;
// Node's `Buffer` is the `buffer` package's. Run by `npm run build`; writes dist/browser-meta.json
// (which modules went in, for test/browser/bundle.test.ts and the bench).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { applyChunkRenames } from './browser-chunk-names.mjs';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist', 'browser');

/**
 * `./x.js` from restfn's sources: `./x.browser.ts` where that sibling exists, except from the sibling
 * itself: a sibling may load the module it stands in for lazily (call.browser.ts: `import('./call.js')`
 * makes the call step a chunk of its own).
 */
const browserSiblings = {
  name: 'browser-siblings',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
      if (!args.importer.startsWith(join(root, 'src'))) return undefined;
      const sibling = resolve(dirname(args.importer), args.path.replace(/\.js$/, '.browser.ts'));
      return existsSync(sibling) && sibling !== args.importer ? { path: sibling } : undefined;
    });
    // The error codes' and validation rules' one-line meanings are for the reference docs
    // (reference-doc.ts), which the worker never writes: left out, the tables keep every code,
    // family, HTTP status and severity (a tenth of the worker's own code, gzipped).
    b.onLoad({ filter: /[/\\]src[/\\](errors[/\\]codes|definition[/\\]rule-codes)\.ts$/ }, (args) => ({
      contents: withoutDocText(readFileSync(args.path, 'utf8')),
      loader: 'ts',
    }));
    // date-fns's prebuilt bundle as text, its own chunk (scripts/date-fns-source.browser.ts).
    b.onResolve({ filter: /^restfn:date-fns-text$/ }, () => ({
      path: join(root, 'node_modules', 'date-fns', 'cdn.min.js'),
      namespace: 'date-fns-text',
    }));
    b.onLoad({ filter: /.*/, namespace: 'date-fns-text' }, async (args) => ({
      contents: readFileSync(args.path, 'utf8'),
      loader: 'text',
    }));
  },
};

/** A string literal in restfn's sources: '...', "..." or `...` (no interpolation in these tables). */
const STRING = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/.source;
const MEANING = new RegExp(`(\\bcode\\(\\s*'\\w+',\\s*)(?:${STRING})`, 'g');
const SUMMARY = new RegExp(`(\\bsummary:\\s*)(?:${STRING})`, 'g');

/** codes.ts's `code('family', 'meaning')` and rule-codes.ts's `summary: '...'` with empty texts. */
function withoutDocText(source) {
  return source.replace(MEANING, "$1''").replace(SUMMARY, "$1''");
}

const common = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox111', 'safari16.4'],
  minify: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  conditions: ['browser'],
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [browserSiblings],
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const page = await build({
  ...common,
  entryPoints: { index: join(root, 'src', 'browser', 'client', 'index.ts') },
  outdir: out,
});
const worker = await build({
  ...common,
  entryPoints: { worker: join(root, 'src', 'browser', 'worker', 'index.ts') },
  outdir: out,
  inject: [join(root, 'src', 'browser', 'shims', 'buffer.ts')],
  splitting: true,
  chunkNames: '[name]-[hash]',
});
// SQLite's, QuickJS's and the other packages' chunks named for what they hold (browser-chunk-names.mjs).
const workerMeta = applyChunkRenames(out, worker.metafile);
// The WebAssembly the bundles fetch beside themselves (new URL('x.wasm', import.meta.url)).
copyFileSync(
  join(root, 'node_modules', '@sqlite.org', 'sqlite-wasm', 'dist', 'sqlite3.wasm'),
  join(out, 'sqlite3.wasm'),
);
copyFileSync(
  join(root, 'node_modules', '@jitl', 'quickjs-wasmfile-release-sync', 'dist', 'emscripten-module.wasm'),
  join(out, 'emscripten-module.wasm'),
);
// The page's API as TypeScript declarations (types/client/index.d.ts, package.json's `restfn/client`),
// emitted from the client's sources with the browser's tsconfig (DOM lib): nothing hand-written to
// fall behind them.
execFileSync(
  join(root, 'node_modules', '.bin', 'tsc'),
  ['-p', join(root, 'src', 'browser', 'client', 'tsconfig.types.json')],
  { stdio: 'inherit' },
);
// Which modules went into which file (test/browser/bundle.test.ts, bench/browser-size.mjs): written on
// every build (beside dist/browser, not in it; npm pack leaves it out). `--meta` is still accepted.
writeFileSync(
  join(root, 'dist', 'browser-meta.json'),
  JSON.stringify({ page: page.metafile, worker: workerMeta }),
);
