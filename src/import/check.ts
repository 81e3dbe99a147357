import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import type { Diagnostic } from '../definition/diagnostic.js';
import { loadFile, type Solution, type SourceFile } from '../definition/solution.js';
import { validateSolution } from '../definition/validate.js';

/**
 * Validates files before they are written, in the context of the whole solution (as `restfn validate`
 * would once they are there): each is written to a temporary folder under its own file name, loaded
 * as a function file, and put in the solution in place of the file it would replace. Findings name
 * the path the file will have.
 */
export async function checkFiles(
  solution: Solution,
  files: ReadonlyArray<{ readonly path: string; readonly text: string }>,
  displayBase = process.cwd(),
): Promise<readonly Diagnostic[]> {
  if (files.length === 0) return [];
  const stage = mkdtempSync(join(tmpdir(), 'restfn-import-'));
  try {
    const replaced = new Set(files.map((f) => f.path));
    const shown = new Set<string>();
    const staged = files.map((f, i) => {
      const dir = join(stage, String(i));
      mkdirSync(dir);
      const path = join(dir, basename(f.path));
      writeFileSync(path, f.text);
      const rel = relative(displayBase, f.path);
      const display = rel.startsWith('..') ? f.path : rel;
      shown.add(display);
      return loadFile('function', path, display);
    });
    const sources = staged.map((s) => s.source);
    const others = solution.files.filter((f) => !replaced.has(f.path));
    const functions = new Map<string, SourceFile<'function'>>();
    for (const f of [...others, ...sources]) {
      if (f.kind === 'function' && !functions.has(f.name)) functions.set(f.name, f as SourceFile<'function'>);
    }
    const overlay: Solution = {
      ...solution,
      files: [...others, ...sources],
      functions,
      diagnostics: [...solution.diagnostics, ...staged.flatMap((s) => s.diagnostics)],
    };
    const result = await validateSolution(overlay, { only: shown });
    return result.diagnostics;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
