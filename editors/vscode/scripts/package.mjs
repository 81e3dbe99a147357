// Packages the VS Code extension (editors/vscode/) as a .vsix: `npm run vsix` at the root, after
// `npm run build` (the server in the package is restfn's own `lsp` command bundle,
// dist/bin/commands/lsp-action.cjs). One esbuild (the extension, `vscode` left to VS Code, and the
// server entry), then `vsce package --no-dependencies`: everything the extension runs is in dist/.
//
//   node editors/vscode/scripts/package.mjs [--out FILE.vsix]   (default editors/vscode/restfn-VERSION.vsix)
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const extension = resolve(import.meta.dirname, '..');
const root = resolve(extension, '..', '..');
const require = createRequire(join(root, 'package.json'));

/**
 * What the server loads at run time from beside it rather than from its bundle: the expression
 * scripts' sandbox (QuickJS: JavaScript that finds its WebAssembly file next to itself), and the
 * linear-time regex engine restfn loads lazily. Copied into dist/server/node_modules/ whole, with
 * their licences.
 */
const SERVER_PACKAGES = [
  'quickjs-emscripten-core',
  '@jitl/quickjs-ffi-types',
  '@jitl/quickjs-wasmfile-release-sync',
  're2js',
];

/**
 * A file of those packages the server never loads: their browser builds, type declarations, READMEs
 * and source maps stay out, and of re2js, which the server `require`s, only build/index.cjs ships
 * (its package has the same engine three times: ES module, CommonJS, UMD). QuickJS's CommonJS
 * entry imports its ES module build (emscripten-module.mjs): .mjs files stay.
 */
function unused(name, file) {
  const base = basename(file);
  if (/\.(map|d\.[cm]?ts)$/.test(base) || /^README/i.test(base)) return true;
  if (/\.(browser|cloudflare)\./.test(base)) return true;
  return name === 're2js' && /^index\.(js|umd\.js)$/.test(base);
}

const { values } = parseArgs({ options: { out: { type: 'string' } }, strict: true });
const version = JSON.parse(readFileSync(join(extension, 'package.json'), 'utf8')).version;
const out = resolve(values.out ?? join(extension, `restfn-${version}.vsix`));

const lspBundle = join(root, 'dist', 'bin', 'commands', 'lsp-action.cjs');
if (!existsSync(lspBundle)) {
  console.error(`package: ${lspBundle} is missing: run \`npm run build\` first (\`npm run vsix\` does)`);
  process.exit(1);
}

const dist = join(extension, 'dist');
rmSync(dist, { recursive: true, force: true });
await build({
  absWorkingDir: extension,
  entryPoints: { extension: 'src/extension.ts', 'server/bin/lsp': 'src/server.ts' },
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // VS Code 1.91 runs extensions (and, here, the bundled server) in Electron's Node 20.9.
  target: 'node20.9',
  // heic-convert (restfn's optional HEIC decoder, 1.9 MB of WebAssembly) is left out: restfn's own
  // bundle asks for it only when an image is converted, and a missing one is a coded error there.
  // better-sqlite3's JavaScript is bundled but its native addon is not (built for Node, it would not
  // load in VS Code's Electron anyway): opening a database fails as SQLITE_UNAVAILABLE (src/local/sqlite.ts).
  external: ['vscode', 'heic-convert', ...SERVER_PACKAGES],
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
for (const name of SERVER_PACKAGES) {
  const from = realpathSync(join(root, 'node_modules', name));
  cpSync(from, join(dist, 'server', 'node_modules', name), {
    recursive: true,
    filter: (file) => !unused(name, file),
  });
}
// Scripts that import date-fns get restfn's prebuilt copy, which the server finds at ../../vendor/
// from its own folder (dist/server/bin/ here, dist/bin/commands/ in restfn's build).
mkdirSync(join(dist, 'vendor'), { recursive: true });
for (const file of ['date-fns.cdn.min.js', 'date-fns.LICENSE.md'])
  copyFileSync(join(root, 'dist', 'vendor', file), join(dist, 'vendor', file));

mkdirSync(dirname(out), { recursive: true });
const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');
// No `repository` in the manifest: restfn's repository is not published yet.
execFileSync(
  process.execPath,
  [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', out],
  { cwd: extension, stdio: ['ignore', 'inherit', 'inherit'] },
);
