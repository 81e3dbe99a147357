import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isValidFileName, suggestFileName } from '../../definition/naming.js';
import { EXTENSION, findSolutionRoot, KIND_FOLDERS, loadSolution } from '../../definition/solution.js';
import { renderTemplate } from '../../definition/templates.js';
import { UsageError } from '../../errors/restfn-error.js';
import type { NewOptions } from './new.js';

/** Writes the new function file and returns its path. */
export function createFunctionFile(input: string, options: NewOptions): string {
  const withoutExtension = input.endsWith(EXTENSION) ? input.slice(0, -EXTENSION.length) : input;
  const segments = withoutExtension.split('/');
  const name = segments.at(-1)!;
  for (const segment of segments) {
    if (!isValidFileName(segment)) {
      const suggestion = suggestFileName(withoutExtension.replaceAll('/', ' ')).replaceAll(' ', '/');
      throw new UsageError(
        `'${input}' is not a valid function name: use lowercase letters, digits and '-'${suggestion ? `, for example '${suggestion}'` : ''}`,
        'INVALID_NAME',
      );
    }
  }
  const root = resolve(options.solution ?? findRootOrHere());
  const existing = loadSolution(root).functions.get(name);
  if (existing) {
    throw new UsageError(
      `function '${name}' already exists: ${existing.path}; choose another name`,
      'FILE_EXISTS',
    );
  }
  const path = join(root, KIND_FOLDERS.function, `${withoutExtension}${EXTENSION}`);
  mkdirSync(dirname(path), { recursive: true });
  try {
    // 'wx' fails when the file exists: never overwrite, even if it appeared since the check above.
    writeFileSync(path, renderTemplate(options.template, options.url), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UsageError(`${path} already exists; choose another name`, 'FILE_EXISTS');
    }
    throw error;
  }
  return path;
}

function findRootOrHere(): string {
  try {
    return findSolutionRoot(process.cwd());
  } catch {
    return process.cwd();
  }
}
