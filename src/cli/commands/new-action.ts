import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { methodFor, renderAction, renderDatasource } from '../../definition/file-templates.js';
import { getFunctionName, isValidFileName, suggestFileName } from '../../definition/naming.js';
import { METHODS } from '../../definition/schema/function.js';
import {
  EXTENSION,
  findSolutionRoot,
  KIND_FOLDERS,
  loadSolution,
  SOLUTION_FILE,
  type Solution,
} from '../../definition/solution.js';
import { didYouMean } from '../../definition/suggest.js';
import { ACTION_METHODS, type ActionMethod, type FileTemplate } from '../../definition/template-names.js';
import { renderTemplate } from '../../definition/templates.js';
import { UsageError } from '../../errors/restfn-error.js';
import { STATE_FOLDER } from '../../local/state-folder.js';
import { quoteTable } from '../../local/table-name.js';
import type { NewOptions } from './new.js';

type HttpMethod = (typeof METHODS)[number];

/** An option of the other kind of template is a mistake to say, not to ignore. */
export function refuseOtherTemplatesOptions(options: NewOptions, urlGiven: boolean): void {
  const { template } = options;
  if (template === 'datasource' || template === 'action') {
    if (urlGiven)
      throw new UsageError(`--url is for function templates: a ${template} uses its function's address`);
    if (template === 'datasource' && options.method !== undefined)
      throw new UsageError(
        "--method is for --template action (what the action does to the record) and function templates (the HTTP method); a datasource reads with its function's method",
      );
    if (template === 'action' && options.method !== undefined && !isActionMethod(options.method))
      throw new UsageError(
        `--method for --template action is what the action does to the record: one of ${ACTION_METHODS.join(', ')}${httpMethod(options.method) ? ` ('${options.method}' is an HTTP method: that is the function's, the method: line of its file)` : ''}`,
      );
    return;
  }
  const wrong = (['function', 'entity'] as const).filter((o) => options[o] !== undefined);
  if (wrong.length > 0)
    throw new UsageError(
      `${wrong.map((o) => `--${o}`).join(', ')} ${wrong.length > 1 ? 'are' : 'is'} for --template datasource or action`,
    );
  if (options.method !== undefined && httpMethod(options.method) === undefined)
    throw new UsageError(
      `--method for a function template is the HTTP method: one of ${METHODS.join(', ')}${isActionMethod(options.method) ? ` ('${options.method}' is what an action does: --template action)` : ''}`,
    );
}

const isActionMethod = (method: string): method is ActionMethod =>
  (ACTION_METHODS as readonly string[]).includes(method);

/** `post` is POST: the method as the file writes it, or undefined when it is none. */
function httpMethod(method: string): HttpMethod | undefined {
  const upper = method.toUpperCase();
  return (METHODS as readonly string[]).includes(upper) ? (upper as HttpMethod) : undefined;
}

/** Writes the new file (a function, or a datasource or action using one) and returns its path. */
export function createFile(input: string, options: NewOptions): string {
  const withoutExtension = input.endsWith(EXTENSION) ? input.slice(0, -EXTENSION.length) : input;
  const segments = withoutExtension.split('/');
  const name = segments.at(-1)!;
  for (const segment of segments) {
    if (!isValidFileName(segment)) {
      const suggestion = suggestFileName(withoutExtension.replaceAll('/', ' ')).replaceAll(' ', '/');
      throw new UsageError(
        `'${input}' is not a valid file name: use lowercase letters, digits and '-'${suggestion ? `, for example '${suggestion}'` : ''}`,
        'INVALID_NAME',
      );
    }
  }
  const root = resolve(options.solution ?? findRootOrHere());
  const solution = loadSolution(root);
  const template = options.template;
  const kind = template === 'datasource' ? 'datasource' : template === 'action' ? 'action' : 'function';
  const existing =
    kind === 'function'
      ? solution.functions.get(name)
      : solution.files.find((f) => f.kind === kind && f.name === name);
  if (existing) {
    throw new UsageError(
      `${kind} '${name}' already exists: ${existing.path}; choose another name`,
      'FILE_EXISTS',
    );
  }
  const text =
    template === 'datasource' || template === 'action'
      ? usingFunction(solution, name, template, options)
      : renderTemplate(template, options.url, options.method && httpMethod(options.method));
  const path = join(root, KIND_FOLDERS[kind], `${withoutExtension}${EXTENSION}`);
  mkdirSync(dirname(path), { recursive: true });
  try {
    // 'wx' fails when the file exists: never overwrite, even if it appeared since the check above.
    writeFileSync(path, text, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UsageError(`${path} already exists; choose another name`, 'FILE_EXISTS');
    }
    throw error;
  }
  return path;
}

/** A datasource or action file for the function `--function` names (which must exist and be valid). */
function usingFunction(
  solution: Solution,
  name: string,
  template: FileTemplate,
  options: NewOptions,
): string {
  const names = [...solution.functions.keys()];
  const fn = options.function;
  if (fn === undefined) {
    throw new UsageError(
      `--template ${template} needs --function NAME: the function it uses${names.length > 0 ? ` (this solution has ${names.map((n) => `'${n}'`).join(', ')})` : " (this solution has none yet: 'restfn new rest-get-items' first)"}`,
    );
  }
  const file = solution.functions.get(fn);
  if (!file) {
    throw new UsageError(
      `--function: function '${fn}' does not exist${didYouMean(fn, names)}`,
      'FUNCTION_NOT_FOUND',
    );
  }
  if (!file.definition) {
    throw new UsageError(
      `--function: function '${fn}' is invalid (${file.path}); fix it first ('restfn validate')`,
    );
  }
  // A name SQLite cannot take is said now, not at the first sync.
  if (options.entity !== undefined) quoteTable(options.entity);
  if (template === 'datasource') return renderDatasource(options.entity ?? name, fn, file.definition);
  if (options.entity === undefined) {
    throw new UsageError(
      '--template action needs --entity TABLE: the local table whose record the action changes',
    );
  }
  return renderAction(
    name,
    options.entity,
    fn,
    file.definition,
    options.method !== undefined && isActionMethod(options.method)
      ? options.method
      : methodFor(file.definition),
  );
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
export function initSolution(dir: string, url: string): { written: string[]; first: string } {
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
  // Named for what it gets: `--url .../tickets` makes rest-get-tickets.
  const first = firstFunctionName(url);
  written.push(createFile(first, { template: 'rest', solution: root, url }));
  const ignore = join(root, '.gitignore');
  if (!existsSync(ignore))
    write(
      ignore,
      `# restfn's state: the local database and encrypted credentials of this machine\n${STATE_FOLDER}/\n`,
    );
  return { written, first };
}

/** The first function's name for `init --url`: rest-get-items when the url's path names nothing. */
export function firstFunctionName(url: string): string {
  return getFunctionName(url, 'rest-get-items');
}

/**
 * What to do after `init DIR`, as commands that work from where the user is: run from the same
 * folder, `--solution DIR` says where the solution is (a solution is found from the current folder
 * upward, never downward). One command a line, so that it can be copied.
 */
export function nextSteps(dir: string, first: string): string {
  const where = dir === '.' ? '' : ` --solution ${shellWord(dir)}`;
  return [
    'restfn: next, from this folder:',
    `  restfn run ${first}${where}`,
    `  restfn new NAME --template rest --url URL${where}`,
    ...(dir === '.' ? [] : [`  (or cd ${shellWord(dir)} first, and leave out --solution)`]),
    '',
  ].join('\n');
}

/** A word as a POSIX shell reads it back: quoted when it holds anything but safe characters. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
