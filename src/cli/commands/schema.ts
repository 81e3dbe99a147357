import { type Command, Option } from 'commander';
import { FILE_KINDS, type FileKind } from '../../definition/file-kinds.js';

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of a definition file, for editors (YAML language server)')
    .addOption(new Option('-k, --kind <kind>', 'which file').choices(FILE_KINDS).default('function'))
    .action(async (options: { kind: FileKind }) => {
      const { jsonSchema } = await import('../../definition/json-schema.js');
      process.stdout.write(`${JSON.stringify(jsonSchema(options.kind), null, 2)}\n`);
    });
}
