import { relative } from 'node:path';
import { type Command, Option } from 'commander';
import { EXTENSION } from '../../definition/definition-files.js';
import {
  ACTION_METHODS,
  DEFAULT_TEMPLATE_URL,
  FILE_TEMPLATES,
  type FileTemplate,
  TEMPLATE_NAMES,
  type TemplateName,
} from '../../definition/template-names.js';

export interface NewOptions {
  template: TemplateName | FileTemplate;
  solution?: string;
  url: string;
  function?: string;
  entity?: string;
  /** The HTTP method for a function template, what the action does for `-t action` (checked in new-action). */
  method?: string;
}

export function registerNew(program: Command): void {
  program
    .command('init')
    .description('start a solution: solution.yaml, a first function, and a .gitignore for the state folder')
    .argument('[dir]', 'the solution folder (made when missing)', '.')
    .option(
      '--url <url>',
      "the first function's address; the function is named for its last path segment (.../tickets: rest-get-tickets)",
      DEFAULT_TEMPLATE_URL,
    )
    .action(async (dir: string, options: { url: string }) => {
      const { initSolution, nextSteps } = await import('./new-action.js');
      const { written, first } = initSolution(dir, options.url);
      for (const path of written) process.stdout.write(`created ${relative(process.cwd(), path) || path}\n`);
      process.stderr.write(nextSteps(dir, first));
    });
  program
    .command('new')
    .description(
      `create functions/NAME${EXTENSION} from a template, or with --template datasource|action a datasource or action using a function (never overwrites)`,
    )
    .argument(
      '<name>',
      `file name, a function's optionally in a subfolder (group/name); ${EXTENSION} is added`,
    )
    .addOption(
      new Option('-t, --template <template>', 'template')
        .choices([...TEMPLATE_NAMES, ...FILE_TEMPLATES])
        .default('rest'),
    )
    .option('-f, --function <name>', 'datasource and action templates: the function the file uses')
    .option(
      '-e, --entity <table>',
      'datasource and action templates: the local table (default: NAME for a datasource; required for --template action: the table whose record the action changes here before its function is called)',
    )
    .option(
      '-m, --method <method>',
      `function templates: the HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD; default GET). --template action: what the action does to the record (${ACTION_METHODS.join(', ')}; default: from the function's HTTP method)`,
    )
    .option(
      '-s, --solution <dir>',
      'solution folder (default: found from the current folder upward, else here)',
    )
    .option('--url <url>', "function templates: the remote service's address", DEFAULT_TEMPLATE_URL)
    .action(async (name: string, options: NewOptions, command: Command) => {
      const { createFile, refuseOtherTemplatesOptions } = await import('./new-action.js');
      refuseOtherTemplatesOptions(options, command.getOptionValueSource('url') !== 'default');
      const path = createFile(name, options);
      process.stdout.write(`created ${relative(process.cwd(), path) || path}\n`);
    });
}
