import { relative } from 'node:path';
import { type Command, Option } from 'commander';
import { EXTENSION } from '../../definition/definition-files.js';
import { DEFAULT_TEMPLATE_URL, TEMPLATE_NAMES, type TemplateName } from '../../definition/template-names.js';

export interface NewOptions {
  template: TemplateName;
  solution?: string;
  url: string;
}

export function registerNew(program: Command): void {
  program
    .command('init')
    .description('start a solution: solution.yaml, a first function, and a .gitignore for the state folder')
    .argument('[dir]', 'the solution folder (made when missing)', '.')
    .option('--url <url>', "the first function's address", DEFAULT_TEMPLATE_URL)
    .action(async (dir: string, options: { url: string }) => {
      const { initSolution } = await import('./new-action.js');
      for (const path of initSolution(dir, options.url))
        process.stdout.write(`created ${relative(process.cwd(), path) || path}\n`);
      process.stderr.write(
        `next: restfn validate${dir === '.' ? '' : ` --solution ${dir}`}, then restfn run rest-get-items (restfn new NAME --template ... adds functions)\n`,
      );
    });
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
    .action(async (name: string, options: NewOptions) => {
      const { createFunctionFile } = await import('./new-action.js');
      const path = createFunctionFile(name, options);
      process.stdout.write(`created ${relative(process.cwd(), path) || path}\n`);
    });
}
