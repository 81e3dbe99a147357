import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { isValidFileName, suggestFileName } from '../../definition/naming.js';
import { EXTENSION, findSolutionRoot, KIND_FOLDERS, loadSolution } from '../../definition/solution.js';
import {
  DEFAULT_TEMPLATE_URL,
  renderTemplate,
  TEMPLATE_NAMES,
  type TemplateName,
} from '../../definition/templates.js';
import { UsageError } from '../../errors/restfn-error.js';

interface Options {
  template: TemplateName;
  solution?: string;
  url: string;
}

export function registerNew(program: Command): void {
  program
    .command('new')
    .description(`create functions/NAME${EXTENSION} from a template (never overwrites)`)
    .argument('<name>', `function name, optionally in a subfolder (group/name); ${EXTENSION} is added`)
    .addOption(new Option('-t, --template <template>', 'template').choices(TEMPLATE_NAMES).default('rest'))
    .option(
      '-s, --solution <dir>',
      'solution folder (default: found from the current folder upward, else here)',
    )
    .option('--url <url>', 'address of the remote service', DEFAULT_TEMPLATE_URL)
    .action((name: string, options: Options) => {
      const path = createFunctionFile(name, options);
      process.stdout.write(`created ${relative(process.cwd(), path) || path}\n`);
    });
}

/** Writes the new function file and returns its path. */
export function createFunctionFile(input: string, options: Options): string {
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
