import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isValidFileName, suggestFileName } from '../../definition/naming.js';
import {
  EXTENSION,
  findSolutionRoot,
  KIND_FOLDERS,
  loadSolution,
  SOLUTION_FILE,
} from '../../definition/solution.js';
import { renderTemplate } from '../../definition/templates.js';
import { UsageError } from '../../errors/restfn-error.js';
import { STATE_FOLDER } from '../../local/state-folder.js';
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

/**
 * `restfn init [DIR]`: a solution that validates and runs as it is: solution.yaml named after the
 * folder, a first function from the plain template, and a .gitignore that keeps the state folder
 * (local database, encrypted credentials) out of version control. Refuses a folder that already
 * holds a solution.yaml; never overwrites a file.
 */
export function initSolution(dir: string, url: string): string[] {
  const root = resolve(dir);
  const settings = join(root, SOLUTION_FILE);
  if (existsSync(settings)) {
    throw new UsageError(
      `${settings} exists: this folder is a solution already (add functions with restfn new)`,
      'FILE_EXISTS',
    );
  }
  const name = suggestFileName(basename(root)) || 'solution';
  mkdirSync(root, { recursive: true });
  const written: string[] = [];
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, { flag: 'wx' });
    written.push(path);
  };
  write(settings, `name: ${name}\ntitle: ${name}\nsettings:\n  custom: {}\n`);
  written.push(createFunctionFile('rest-get-items', { template: 'rest', solution: root, url }));
  const ignore = join(root, '.gitignore');
  if (!existsSync(ignore))
    write(
      ignore,
      `# restfn's state: the local database and encrypted credentials of this machine\n${STATE_FOLDER}/\n`,
    );
  return written;
}
