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
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { applyChunkRenames } from './browser-chunk-names.mjs';
import { BUFFER_SHIM, browserSiblings } from './browser-siblings.mjs';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist', 'browser');

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
  inject: [BUFFER_SHIM, join(root, 'src', 'browser', 'shims', 'set-immediate.ts')],
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
