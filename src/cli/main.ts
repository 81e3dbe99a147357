#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { RestfnError } from '../errors/restfn-error.js';
import { registerCredentials } from './commands/credentials.js';
import { registerNew } from './commands/new.js';
import { registerQuery } from './commands/query.js';
import { registerRun } from './commands/run.js';
import { registerSchema } from './commands/schema.js';
import { registerSync } from './commands/sync.js';
import { registerValidate } from './commands/validate.js';
import { exitCodeFor } from './exit-codes.js';

const program = new Command('restfn')
  .description('run declarative REST function definitions (.platform files)')
  .version('0.1.0')
  .exitOverride()
  .showHelpAfterError('(run restfn --help for usage)');

registerValidate(program);
registerRun(program);
registerSync(program);
registerQuery(program);
registerCredentials(program);
registerSchema(program);
registerNew(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Commander already printed its own usage message.
  if (!(error instanceof CommanderError)) {
    const code = error instanceof RestfnError ? ` ${error.code}` : '';
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`restfn: error${code}: ${message}\n`);
    if (!(error instanceof RestfnError) && process.env.RESTFN_DEBUG && error instanceof Error) {
      process.stderr.write(`${error.stack}\n`);
    }
  }
  process.exitCode = exitCodeFor(error);
}
