import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUFFER_SHIM, browserSiblings } from '../../scripts/browser-siblings.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

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
    // The library's browser siblings, as the client's build uses them (scripts/build-browser.mjs).
    plugins: [browserSiblings],
    inject: [BUFFER_SHIM],
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
