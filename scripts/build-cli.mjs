// Bundles the CLI (issue 11, start-up): src/cli/main.ts and everything it imports, restfn's modules
// and its JavaScript dependencies, into dist/bin/restfn.js. Start-up is mostly Node finding, reading
// and compiling files (a `restfn run` loaded ~250 of them); a bundle is a handful. Code splitting
// keeps what the commands import lazily (`await import(...)`) in chunks of their own
// (dist/bin/chunks/), so `--help` still loads only its own code. dist/bin/meta.json records which
// source modules went into which output file (test/cli/startup.test.ts reads it).
// The library (dist/index.js) stays tsc's output, one file per module. Run by `npm run build`.
import { copyFileSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { patchedFiles } from './dependency-patches.mjs';

const root = new URL('..', import.meta.url).pathname;
// Chunk names carry a hash of their content: without this, old chunks would pile up.
rmSync(new URL('../dist/bin', import.meta.url), { recursive: true, force: true });

const bundledRequires = requiresBundled(['yaml', 'jsonata']);
const patched = patchedFiles();
const patches = withPatches(patched);
const result = await build({
  absWorkingDir: root,
  entryPoints: { restfn: 'src/cli/main.ts' },
  outdir: 'dist/bin',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // Left to Node's loader: native code (better-sqlite3), WebAssembly shipped as files beside their
  // loaders (the QuickJS sandbox, the HEIC decoder).
  external: [
    'better-sqlite3',
    'quickjs-emscripten-core',
    '@jitl/quickjs-wasmfile-release-sync',
    'heic-convert',
    // The platform (`restfn serve`, its own chunk): argon2 is native code; fastify and pino resolve
    // files of their own at run time (pino's worker transports), so they load from node_modules.
    '@node-rs/argon2',
    'fastify',
    '@fastify/*',
    'pino',
    // PostgreSQL's driver asks for its optional native binding by name; from node_modules it loads
    // only for `serve --database`.
    'pg',
  ],
  // CommonJS dependencies bundled into ES modules call `require` for Node's built-in modules.
  banner: {
    js: "import { createRequire as __restfnRequire } from 'node:module'; const require = __restfnRequire(import.meta.url);",
  },
  plugins: [bundledRequires.plugin, patches.plugin, llhttpFromPackage(), commanderWithoutChildProcess()],
  // Less text for V8 to compile at every start (about 3 ms of a run's 135; names are kept, so stack
  // traces still read as the sources).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
bundledRequires.check();
patches.check();
writeFileSync(new URL('../dist/bin/meta.json', import.meta.url), JSON.stringify(result.metafile));
vendorJsonata(patched);

/**
 * The CLI bundle takes restfn's patched copies of its dependencies' files (dependency-patches.mjs).
 * `check` fails the build when one of them was never loaded: the patch would be silently missing.
 */
function withPatches(files) {
  const loaded = new Set();
  const plugin = {
    name: 'dependency-patches',
    setup(b) {
      b.onLoad({ filter: /[/\\]node_modules[/\\]/ }, (args) => {
        const contents = files.get(realpathSync(args.path));
        if (contents === undefined) return undefined;
        loaded.add(realpathSync(args.path));
        return { contents, loader: 'js' };
      });
    },
  };
  const check = () => {
    const missed = [...files.keys()].filter((path) => !loaded.has(path));
    if (missed.length > 0)
      throw new Error(`build-cli: patched files not in the bundle: ${missed.join(', ')}`);
  };
  return { plugin, check };
}

/**
 * The library (tsc's output, unbundled) loads JSONata from dist/vendor/jsonata.cjs, restfn's patched
 * copy, rather than from the jsonata package, so that `import { createRuntime } from 'restfn'`
 * evaluates expressions as the CLI does. JSONata's licence goes with it.
 */
function vendorJsonata(files) {
  const source = realpathSync(fileURLToPath(new URL('../node_modules/jsonata/jsonata.js', import.meta.url)));
  const text = files.get(source);
  if (!text) throw new Error('build-cli: no patch for jsonata/jsonata.js in patches/');
  const vendor = new URL('../dist/vendor/', import.meta.url);
  mkdirSync(vendor, { recursive: true });
  writeFileSync(new URL('jsonata.cjs', vendor), text);
  copyFileSync(
    new URL('../node_modules/jsonata/LICENSE', import.meta.url),
    new URL('jsonata.LICENSE', vendor),
  );
  const loader = new URL('../dist/expression/jsonata.js', import.meta.url);
  const compiled = readFileSync(loader, 'utf8');
  const call = "createRequire(import.meta.url)('jsonata')";
  if (!compiled.includes(call)) throw new Error(`build-cli: dist/expression/jsonata.js has no ${call}`);
  writeFileSync(loader, compiled.replace(call, "createRequire(import.meta.url)('../vendor/jsonata.cjs')"));
}

/**
 * restfn's sources load some CommonJS packages with `createRequire(import.meta.url)('name')` rather
 * than `import`: in tsc's output (the library), an import would make Node scan each of their files
 * for export names (cjs-module-lexer). esbuild cannot see through that call, so it would leave those
 * packages to be loaded file by file from node_modules. For the packages named here (loaded by every
 * command that reads definitions) the call becomes a plain `require('name')`, which esbuild bundles
 * (and runs where the call stands, as before). The others stay lazy loads from node_modules.
 */
function requiresBundled(names) {
  const call = new RegExp(
    `createRequire\\(\\s*import\\.meta\\.url,?\\s*\\)\\(\\s*'(${names.join('|')})'\\s*\\)`,
    'g',
  );
  const seen = new Set();
  const plugin = {
    name: 'requires-bundled',
    setup(b) {
      b.onLoad({ filter: /[/\\]src[/\\].*\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const contents = source.replace(call, (_, name) => {
          seen.add(name);
          return `require('${name}')`;
        });
        return { contents, loader: 'ts' };
      });
    },
  };
  // A source that stopped loading one of them this way would otherwise go unnoticed.
  const check = () => {
    const missing = names.filter((name) => !seen.has(name));
    if (missing.length > 0)
      throw new Error(`build-cli: no createRequire(import.meta.url)('${missing.join("' | '")}') in src/`);
  };
  return { plugin, check };
}

/**
 * undici's HTTP parser, llhttp, is WebAssembly kept as a base64 string in a JavaScript file, in two
 * builds (with and without SIMD) of 72 KB each. Bundled, both would be read and scanned on every
 * start of a command that may call; left to `require` from undici's package, only the build undici
 * picks is read, when it makes its first connection.
 */
function llhttpFromPackage() {
  return {
    name: 'llhttp-from-package',
    setup(b) {
      b.onResolve({ filter: /[/\\]llhttp[/\\]llhttp(_simd)?-wasm\.js$/ }, (args) => ({
        path: `undici/lib/llhttp/${args.path.split(/[/\\]/).pop()}`,
        external: true,
      }));
    },
  };
}

/**
 * commander loads `node:child_process` (and with it `dgram`, `net`'s socket list...) at start, for
 * subcommands that are separate executables, which restfn has none of: about 2 ms of every start.
 * Here it is loaded at the first `spawn`, should one ever happen.
 */
function commanderWithoutChildProcess() {
  const eager = "const childProcess = require('node:child_process');";
  return {
    name: 'commander-without-child-process',
    setup(b) {
      b.onLoad({ filter: /[/\\]commander[/\\]lib[/\\]command\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(eager)) throw new Error(`build-cli: commander no longer has "${eager}"`);
        const lazy =
          "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
        return { contents: source.replace(eager, lazy), loader: 'js' };
      });
    },
  };
}
