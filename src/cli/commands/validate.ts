import type { Command } from 'commander';
import { formatOption } from '../output.js';

export interface ValidateOptions {
  solution?: string;
  format: string;
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check definitions: schema, rules and expressions; exit 3 when there are errors')
    .argument('[paths...]', 'solution folders or .platform files (default: the current solution)')
    .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
    .addOption(formatOption())
    .action(async (paths: string[], options: ValidateOptions) => {
      const { validate } = await import('./validate-action.js');
      await validate(paths, options);
    });
}
