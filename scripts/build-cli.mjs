// Bundles the CLI (issues 11 and 29, start-up) into dist/bin/: src/cli/main.ts, commander and the
// commands' options as restfn.js (what `--help` runs), and each command's action with everything it
// runs, restfn's modules and its JavaScript dependencies, as one CommonJS script,
// dist/bin/commands/NAME-action.cjs, which V8 can cache compiled (src/cli/command-bundle.ts).
// Start-up was mostly Node finding, reading and compiling files (a `restfn run` loaded ~250 of them
// unbundled, ~30 chunks as ES modules). dist/bin/meta.json records which source modules went into
// which output file (test/cli/startup.test.ts reads it). The library (dist/index.js) stays tsc's
// output, one file per module. Run by `npm run build`.
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { patchedFiles } from './dependency-patches.mjs';

const root = new URL('..', import.meta.url).pathname;
/**
 * Actions that share a bundle: the commands that call services run the same engine, HTTP client,
 * YAML and JSONata, and as bundles of their own each carried its copy (five times 1.1 MB in the
 * package, issue 38). What one of them does not run costs a `restfn run` only the reading of its
 * text: V8 compiles a function when it is first called. An action not named here has its own bundle.
 */
const SHARED_BUNDLES = {
  'run-action': 'calls-action',
  'action-action': 'calls-action',
  'query-action': 'calls-action',
  'queue-action': 'calls-action',
  'sync-action': 'calls-action',
  'validate-action': 'authoring-action',
  'new-action': 'authoring-action',
  'platform-action': 'authoring-action',
  'import-action': 'authoring-action',
  'credentials-action': 'calls-action',
};
// Chunk names carry a hash of their content: without this, old chunks would pile up.
rmSync(new URL('../dist/bin', import.meta.url), { recursive: true, force: true });

const bundledRequires = requiresBundled(['yaml', 'jsonata']);
const patched = patchedFiles();
const patches = withPatches(patched);
const commands = commandBundles();
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  // Left to Node's loader: native code (better-sqlite3), WebAssembly shipped as files beside their
  // loaders (the QuickJS sandbox, the HEIC decoder).
  external: [
    'better-sqlite3',
    'quickjs-emscripten-core',
    '@jitl/quickjs-wasmfile-release-sync',
    'heic-convert',
    // The platform (`restfn serve`): argon2 is native code; fastify and pino resolve files of their
    // own at run time (pino's worker transports), so they load from node_modules.
    '@node-rs/argon2',
    'fastify',
    '@fastify/*',
    'pino',
    // PostgreSQL's driver asks for its optional native binding by name; from node_modules it loads
    // only for `serve --database`.
    'pg',
  ],
  // Less text for V8 to compile at every start (about 3 ms of a run's 135; names are kept, so stack
  // traces still read as the sources).
  minifyWhitespace: true,
  minifySyntax: true,
  // The bundles' maps are written beside them (test/cli/startup.test.ts maps what ran back to the
  // sources) but not linked, and the package leaves them out (package.json `files`): each was as big
  // as three bundles, and a registry user's stack traces read as the sources without them (names
  // are kept). RESTFN_SOURCEMAPS=1 links them, for `node --enable-source-maps` in a checkout.
  sourcemap: process.env.RESTFN_SOURCEMAPS === '1' ? 'linked' : 'external',
  metafile: true,
  logLevel: 'warning',
};
// The entry: commander and the commands' options, what `--help` runs. A command's action (each
// `import('./NAME-action.js')`) is its own bundle, below.
const entry = await build({
  ...common,
  entryPoints: { restfn: 'src/cli/main.ts' },
  outdir: 'dist/bin',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  format: 'esm',
  // CommonJS dependencies bundled into ES modules call `require` for Node's built-in modules.
  banner: {
    js: "import { createRequire as __restfnRequire } from 'node:module'; const require = __restfnRequire(import.meta.url);",
  },
  plugins: [commands.plugin, bundledRequires.plugin, patches.plugin, commanderWithoutChildProcess()],
});
// Each command's action with everything it runs, one CommonJS script per command
// (dist/bin/commands/NAME.cjs), which src/cli/command-bundle.ts loads with V8's code cache. Its
// entry also exports the CLI's error handling: the command's errors are instances of its own copies
// of restfn's error classes.
const actions = await build({
  ...common,
  entryPoints: commands.bundles.map((name) => ({ in: `restfn-command:${name}`, out: name })),
  outdir: 'dist/bin/commands',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // `import()` becomes `require`: a script's dynamic import needs a loader of its own (an
  // experimental option of `vm.Script` in Node 20, lost with the code cache). Every package left
  // to Node's loader has a CommonJS entry.
  supported: { 'dynamic-import': false },
  // `import.meta.url` of the bundled sources (files found beside them: workers, the console) is the
  // bundle's own address: it lies as deep in dist/ as the chunks did.
  define: { 'import.meta.url': '__restfnImportMetaUrl' },
  banner: { js: "const __restfnImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [
    commands.entries,
    bundledRequires.plugin,
    patches.plugin,
    llhttpFromPackage(),
    commanderWithoutChildProcess(),
  ],
});
commands.check();
bundledRequires.check();
patches.check();
writeFileSync(
  new URL('../dist/bin/meta.json', import.meta.url),
  JSON.stringify({
    inputs: { ...entry.metafile.inputs, ...actions.metafile.inputs },
    outputs: { ...entry.metafile.outputs, ...actions.metafile.outputs },
  }),
);
vendorJsonata(patched);
vendorDateFns();

/**
 * The commands' actions: `import('./NAME-action.js')` in src/cli/commands/ becomes, in the entry,
 * `loadCommandBundle('NAME-action')` (src/cli/command-bundle.ts), or the bundle SHARED_BUNDLES
 * names, and each bundle is the entry of a build (`entries`: its actions, and the CLI's error
 * handling).
 */
function commandBundles() {
  const dir = join(root, 'src', 'cli', 'commands');
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('-action.ts'))
    .map((f) => f.slice(0, -'.ts'.length));
  const bundleOf = (name) => SHARED_BUNDLES[name] ?? name;
  const bundles = [...new Set(names.map(bundleOf))];
  const seen = new Set();
  const plugin = {
    name: 'command-bundles',
    setup(b) {
      b.onResolve({ filter: /^\.\/[a-z]+-action\.js$/ }, (args) => {
        if (args.importer !== join(dir, basename(args.importer))) return undefined;
        return { path: args.path.slice(2, -'.js'.length), namespace: 'restfn-command-loader' };
      });
      b.onLoad({ filter: /.*/, namespace: 'restfn-command-loader' }, (args) => {
        seen.add(args.path);
        const exported = functionsExported(join(dir, `${args.path}.ts`));
        return {
          contents: [
            "import { loadCommandBundle } from './command-bundle.ts';",
            `const bundle = loadCommandBundle(${JSON.stringify(bundleOf(args.path))}, ${JSON.stringify(args.path)});`,
            ...exported.map((name) => `export const ${name} = bundle.${name};`),
          ].join('\n'),
          resolveDir: join(root, 'src', 'cli'),
          loader: 'js',
        };
      });
    },
  };
  const entries = {
    name: 'command-bundle-entries',
    setup(b) {
      b.onResolve({ filter: /^restfn-command:/ }, (args) => ({
        path: args.path.slice('restfn-command:'.length),
        namespace: 'restfn-command',
      }));
      b.onLoad({ filter: /.*/, namespace: 'restfn-command' }, (args) => ({
        contents: [
          ...actionsOf(args.path),
          "export { codedError } from './coded-error.ts';",
          "export { errorDetails } from './error-details.ts';",
          "export { exitCodeFor } from './exit-codes.ts';",
        ].join('\n'),
        resolveDir: join(root, 'src', 'cli'),
        loader: 'ts',
      }));
    },
  };
  /**
   * A bundle's exports: its action's; in a shared bundle, each action's functions as calls that
   * run the action's module (and what it imports) when first called. Run at the bundle's load,
   * `restfn run` would open the local store for queue's and sync's modules.
   */
  const actionsOf = (bundle) => {
    const actions = names.filter((name) => bundleOf(name) === bundle);
    if (actions.length === 1) return [`export * from './commands/${actions[0]}.ts';`];
    return actions.flatMap((name) =>
      functionsExported(join(dir, `${name}.ts`)).map(
        (fn) => `export function ${fn}(...args) { return require('./commands/${name}.ts').${fn}(...args); }`,
      ),
    );
  };
  // A command file that stopped importing its action this way would bundle it into the entry.
  const check = () => {
    const missed = names.filter((name) => !seen.has(name));
    if (missed.length > 0)
      throw new Error(`build-cli: no import('./NAME-action.js') for ${missed.join(', ')}`);
  };
  return { names, bundles, plugin, entries, check };
}

/** The functions an action file exports (all it may export: the entry re-exports them by name). */
function functionsExported(file) {
  const source = readFileSync(file, 'utf8');
  const other = /^export (?!(?:async )?function |type |interface )/m.exec(source);
  if (other) throw new Error(`build-cli: ${file} exports more than functions: '${other[0]}...'`);
  return [...source.matchAll(/^export (?:async )?function (\w+)/gm)].map((m) => m[1]);
}

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
 * Expression scripts import date-fns from its prebuilt bundle (src/expression/scripts/sandbox.ts),
 * copied to dist/vendor/ with its licence: the package itself (11 MB installed) is a dev dependency.
 */
function vendorDateFns() {
  const vendor = new URL('../dist/vendor/', import.meta.url);
  mkdirSync(vendor, { recursive: true });
  copyFileSync(
    new URL('../node_modules/date-fns/cdn.min.js', import.meta.url),
    new URL('date-fns.cdn.min.js', vendor),
  );
  copyFileSync(
    new URL('../node_modules/date-fns/LICENSE.md', import.meta.url),
    new URL('date-fns.LICENSE.md', vendor),
  );
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
