import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** The newest modification time of the files under `dir`. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/**
 * CLI tests run the built CLI (`dist/bin/`, bundled from `src/`), as users do. `npm test` builds first; a plain `vitest` run
 * after editing the sources would test a stale build and could pass for the wrong reason, so the
 * build is redone here whenever a source is newer than it.
 */
export default function setup(): void {
  // Every part of the build: the library (tsc), the CLI bundle (scripts/build-cli.mjs), the browser
  // client (scripts/build-browser.mjs), the console (vite).
  let built = 0;
  try {
    built = Math.min(
      statSync(join(root, 'dist', 'index.js')).mtimeMs,
      statSync(join(root, 'dist', 'bin', 'restfn.js')).mtimeMs,
      statSync(join(root, 'dist', 'console', 'index.html')).mtimeMs,
      statSync(join(root, 'dist', 'browser', 'worker.js')).mtimeMs,
    );
  } catch {
    // Not built yet.
  }
  if (Math.max(newest(join(root, 'src')), newest(join(root, 'console', 'src'))) > built) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
}
