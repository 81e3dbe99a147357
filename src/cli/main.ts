#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { Command, CommanderError } from 'commander';
import { printable } from '../errors/printable.js';
import { loadedCommandBundle } from './command-bundle.js';
import { registerAction } from './commands/action.js';
import { registerCredentials } from './commands/credentials.js';
import { registerImport } from './commands/import.js';
import { registerLsp } from './commands/lsp.js';
import { registerNew } from './commands/new.js';
import { registerPlatform } from './commands/platform.js';
import { registerQuery } from './commands/query.js';
import { registerQueue } from './commands/queue.js';
import { registerRun } from './commands/run.js';
import { registerSchema } from './commands/schema.js';
import { registerServe } from './commands/serve.js';
import { registerSync } from './commands/sync.js';
import { registerValidate } from './commands/validate.js';
import { addExamples } from './examples.js';
import { EXIT } from './exit-table.js';
import { paint } from './output.js';

// Start-up is part of every command: this file and the command files it registers load only
// commander. Each command loads its own modules when it runs (a dynamic import in its action), and
// the error classes below are loaded only when something failed. test/cli/startup.test.ts checks it.

// WebAssembly tiers up late in this process (issue 11). V8 compiles a wasm function with its
// baseline compiler (Liftoff) and recompiles it with TurboFan once it has run for a "budget"; the
// default budget runs out within the first HTTP response for undici's llhttp parser, whose main
// function then takes ~0.5 s of CPU to optimise: a third of a `restfn run` of one GET, for a parser
// that reads a few hundred bytes of headers. Same for the QuickJS script sandbox (5 TurboFan
// compiles for a 10-call script). 100x the default lets a long run (hundreds of responses, a busy
// script) still tier up, where it pays. The flag is read when a module is instantiated, so setting
// it here, before anything compiles WebAssembly, takes effect; the library leaves V8 alone.
setFlagsFromString('--wasm-tiering-budget=180000000');
// The commands' code caches (command-bundle.ts) are checked against their checksum before V8 reads
// them: release builds skip it, and a corrupted cache then crashed V8 on every run of the command.
setFlagsFromString('--verify-snapshot-checksum');

// `restfn query ... | head`: the reader closing the pipe early is not a failure of restfn. Stop
// quietly with the exit code so far instead of crashing on an unhandled EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

const program = new Command('restfn')
  .description('run declarative REST function definitions (.platform files)')
  .version('0.1.0')
  .exitOverride()
  // Commander's own usage errors take the form of every other failure: a code, escaped text.
  // Set before the commands are registered: they inherit it.
  .configureOutput({
    // Commander's message may have a second line ("(Did you mean --server?)"): each line is
    // escaped on its own, so the line break stays a line break.
    outputError: (text, write) =>
      write(
        text.startsWith('error: ')
          ? `${text
              .slice('error: '.length)
              .trimEnd()
              .split('\n')
              .map((line, i) =>
                i === 0
                  ? `restfn: ${paint(process.stderr).red('error')} ${printable(`USAGE: ${line}`)}`
                  : printable(line),
              )
              .join('\n')}\n`
          : text,
      ),
  })
  .showHelpAfterError("restfn: run 'restfn --help' for usage");

registerValidate(program);
registerRun(program);
registerSync(program);
registerQuery(program);
registerAction(program);
registerQueue(program);
registerCredentials(program);
registerSchema(program);
registerNew(program);
registerImport(program);
registerServe(program);
registerPlatform(program);
registerLsp(program);

// A usage error points at the help of the command it happened in (`restfn queue push --help`),
// commander's own ("unknown option") and restfn's (`UsageError` raised while the command runs).
const helpOf = (command: Command): string => {
  // A default subcommand (`queue` runs `queue list`) is reached without its name: the parent's help.
  const isDefault = (c: Command) =>
    (c.parent as { _defaultCommandName?: string } | null)?._defaultCommandName === c.name();
  const names: string[] = [];
  for (let c: Command | null = isDefault(command) ? command.parent : command; c; c = c.parent)
    names.unshift(c.name());
  return `restfn: run '${names.join(' ')} --help' for usage`;
};
const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)];
for (const command of everyCommand(program).slice(1)) command.showHelpAfterError(helpOf(command));
// An Examples section (gh's model) after every command's help: examples.ts.
addExamples(everyCommand(program));
let running: Command | undefined;
program.hook('preAction', (_program, command) => {
  running = command;
});

type ErrorHandling = typeof import('./coded-error.js') &
  typeof import('./error-details.js') &
  typeof import('./exit-codes.js');

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Commander already printed its own usage message.
  if (error instanceof CommanderError) {
    // --help and --version end here too; anything else is wrong usage (as exitCodeFor says).
    process.exitCode = error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  } else {
    // A command's bundle has its own copies of the error classes (command-bundle.ts): its errors
    // are recognised by its own functions.
    const bundle = loadedCommandBundle() as ErrorHandling | undefined;
    const { codedError, errorDetails, exitCodeFor }: ErrorHandling =
      bundle ??
      Object.assign(
        {},
        ...(await Promise.all([
          import('./coded-error.js'),
          import('./error-details.js'),
          import('./exit-codes.js'),
        ])),
      );
    // Never an uncoded engine message: anything restfn did not raise itself gets a code here.
    const coded = codedError(error, running?.name());
    // Escaped: a name from the command line or a file, or a service's text, must not drive the terminal.
    const { red } = paint(process.stderr);
    process.stderr.write(`restfn: ${red('error')} ${printable(`${coded.code}: ${coded.message}`)}\n`);
    for (const line of errorDetails(coded)) process.stderr.write(`${line}\n`);
    if (coded.code === 'USAGE' && running) process.stderr.write(`${helpOf(running)}\n`);
    if (coded !== error && process.env.RESTFN_DEBUG && error instanceof Error) {
      process.stderr.write(`${error.stack}\n`);
    }
    process.exitCode = exitCodeFor(coded);
  }
}
