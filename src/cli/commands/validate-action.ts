import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { findSolutionRoot, kindOfPath, loadSolution } from '../../definition/solution.js';
import { type ValidationResult, validateSolution } from '../../definition/validate.js';
import { UsageError } from '../../errors/restfn-error.js';
import { diagnosticLine } from '../diagnostic-line.js';
import { EXIT } from '../exit-table.js';
import { printReport } from '../output.js';
import { solutionDir } from '../solution-dir.js';
import type { ValidateOptions } from './validate.js';

/** `restfn validate` (loaded when the command runs; its options are in validate.ts). */
export async function validate(paths: string[], options: ValidateOptions): Promise<void> {
  const results = await Promise.all(groupBySolution(paths, options.solution).map(validateGroup));
  const merged = merge(results);
  printReport(options.format, merged, () => textReport(merged));
  process.exitCode = merged.errors > 0 ? EXIT.INVALID_DEFINITION : EXIT.OK;
}

interface Group {
  root: string;
  /** Files to report on (absolute); undefined means the whole solution. */
  files?: Set<string>;
}

/** Each path is a solution folder or a file inside one; files of one solution are checked together. */
function groupBySolution(paths: string[], solution: string | undefined): Group[] {
  if (paths.length === 0) return [{ root: resolve(solutionDir(solution)) }];
  const groups = new Map<string, Group>();
  for (const path of paths.map((p) => resolve(p))) {
    const isDir = statOrThrow(path).isDirectory();
    const root = isDir ? path : findSolutionRoot(dirname(path));
    if (!isDir && kindOfPath(root, path) === undefined) {
      throw new UsageError(
        `${path} is not a definition file: put it under functions/, datasources/ or actions/ of ${root}`,
      );
    }
    const group = groups.get(root) ?? { root, files: new Set<string>() };
    if (isDir) delete group.files;
    else group.files?.add(path);
    groups.set(root, group);
  }
  return [...groups.values()];
}

async function validateGroup(group: Group): Promise<ValidationResult> {
  const solution = loadSolution(group.root);
  if (!group.files) return validateSolution(solution);
  const wanted = group.files;
  const only = new Set(
    [...solution.files, ...(solution.settings ? [solution.settings] : [])]
      .filter((f) => wanted.has(f.path))
      .map((f) => f.yaml.file),
  );
  return validateSolution(solution, { only });
}

function merge(results: ValidationResult[]): ValidationResult {
  return {
    files: results.reduce((n, r) => n + r.files, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    warnings: results.reduce((n, r) => n + r.warnings, 0),
    diagnostics: results.flatMap((r) => r.diagnostics),
  };
}

function textReport(result: ValidationResult): string {
  const lines = result.diagnostics.map((d) => diagnosticLine(d, process.stdout));
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  lines.push(
    `${plural(result.files, 'file')} checked: ${plural(result.errors, 'error')}, ${plural(result.warnings, 'warning')}`,
  );
  return `${lines.join('\n')}\n`;
}

function statOrThrow(path: string) {
  try {
    return statSync(path);
  } catch {
    throw new UsageError(`no such file or folder: ${path}`);
  }
}
