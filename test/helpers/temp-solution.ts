import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A fresh solution folder for one test, removed when the test ends. Keys are paths inside it. */
export function tempSolution(files: Record<string, string> = {}, copyFrom?: string): string {
  const root = mkdtempSync(join(tmpdir(), 'restfn-test-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  if (copyFrom) cpSync(copyFrom, root, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
export const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
