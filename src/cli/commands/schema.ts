import { type Command, Option } from 'commander';
import { jsonSchema } from '../../definition/json-schema.js';
import { FILE_KINDS, type FileKind } from '../../definition/schema/index.js';

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of a definition file, for editors (YAML language server)')
    .addOption(new Option('-k, --kind <kind>', 'which file').choices(FILE_KINDS).default('function'))
    .action((options: { kind: FileKind }) => {
      process.stdout.write(`${JSON.stringify(jsonSchema(options.kind), null, 2)}\n`);
    });
}
