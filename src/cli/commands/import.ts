import type { Command } from 'commander';
import { formatOption } from '../output.js';
import { collect } from '../parameters.js';

export interface ImportOptions {
  solution?: string;
  only: string[];
  exclude: string[];
  var: string[];
  vars?: string;
  from?: string;
  prefix: string;
  dryRun?: boolean;
  force?: boolean;
  format?: string;
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      'write one function file per operation of an OpenAPI 3.0/3.1, Swagger 2.0 or Postman v2.0/v2.1 description',
    )
    .argument('<file>', 'the description: a local file (JSON or YAML) or a file:// URL')
    .option(
      '-s, --solution <dir>',
      'solution folder (default: found from the current folder upward, else here)',
    )
    .option(
      '--only <name...>',
      'import only these: tags (Postman: folders), operationIds (request names), or function names',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option(
      '--exclude <name...>',
      'leave these out: tags (Postman: folders), operationIds (request names), or function names',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option(
      '--from <file>',
      "where the description was when its functions were imported (it moved): those files are this import's",
    )
    .option(
      '--vars <file>',
      'variables from a file: a Postman environment export, or a JSON object of name: value',
    )
    .option(
      '--var <name=value>',
      'a variable: {{name}} in Postman, a server {variable}, or baseUrl (repeatable)',
      collect,
      [],
    )
    .option('--prefix <prefix>', 'put before every function name ("" for none)', 'rest')
    .option('--dry-run', 'print the plan (files, names, conflicts) and write nothing')
    .option('--force', 'overwrite files that changed since they were imported, or that were not imported')
    .addOption(formatOption())
    .action(async (file: string, options: ImportOptions) => {
      const { importDescription } = await import('./import-action.js');
      await importDescription(file, options);
    });
}
