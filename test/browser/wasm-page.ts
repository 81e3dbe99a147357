import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

/**
 * Node modules src/local/store.ts reaches, replaced in the test bundle by page/node-shims.ts (see
 * there): what the lead's browser build must give `X.browser.ts` siblings for.
 */
const SHIMMED = new Set(['node:crypto', './sqlite.js', './private-path.js', './process-alive.js']);

const shims: Plugin = {
  name: 'restfn-test-shims',
  setup(b) {
    b.onResolve(
      { filter: /^(node:crypto|\.\/sqlite\.js|\.\/private-path\.js|\.\/process-alive\.js)$/ },
      (args) =>
        SHIMMED.has(args.path) && args.importer.includes(`${join('src', 'local')}`)
          ? { path: join(HERE, 'page', 'node-shims.ts') }
          : undefined,
    );
  },
};

export interface TestPage {
  readonly folder: string;
  remove(): void;
}

/**
 * The test page in a temp folder: index.html, page.js and worker.js bundled by esbuild (ESM, for
 * the browser), and SQLite's sqlite3.wasm beside worker.js, where sqlite-wasm looks for it.
 */
export async function buildTestPage(): Promise<TestPage> {
  const folder = mkdtempSync(join(tmpdir(), 'restfn-wasm-page-'));
  await build({
    entryPoints: { page: join(HERE, 'page', 'page.ts'), worker: join(HERE, 'page', 'worker.ts') },
    outdir: folder,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
    plugins: [shims],
  });
  copyFileSync(
    join(ROOT, 'node_modules', '@sqlite.org', 'sqlite-wasm', 'dist', 'sqlite3.wasm'),
    join(folder, 'sqlite3.wasm'),
  );
  writeFileSync(
    join(folder, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>restfn wasm database</title><script type="module" src="./page.js"></script>\n',
  );
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
