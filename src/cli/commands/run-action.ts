import { loadSolution } from '../../definition/solution.js';
import { validateSolution } from '../../definition/validate.js';
import { SYSTEM_CLOCK } from '../../errors/clock.js';
import { CredentialError } from '../../errors/credential-error.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { refuseUnknownParameters } from '../../runtime/parameters.js';
import { diagnosticLine } from '../diagnostic-line.js';
import { InterruptedError } from '../errors.js';
import { readFileParameters } from '../file-parameters.js';
import { onInterrupt } from '../interrupt.js';
import { printFiltered } from '../output-filter.js';
import { parseParameters } from '../parameters.js';
import { counted } from '../plural.js';
import { cliRuntime } from '../runtime.js';
import { solutionDir } from '../solution-dir.js';
import { trace } from '../trace.js';
import { waitingReporter } from '../waiting.js';
import type { RunOptions } from './run.js';

/** `restfn run` (loaded when the command runs; its options are in run.ts). */
export async function run(name: string, options: RunOptions): Promise<void> {
  const given = parseParameters(options.param, options.params);
  const solution = loadSolution(solutionDir(options.solution));
  const file = solution.functions.get(name);
  if (file?.definition) refuseUnknownParameters(name, Object.keys(given), file.definition.parameters);
  // A file parameter's `@path` (or path, or file:// url) is read here: the caller's disk is the CLI's.
  const parameters = readFileParameters(given, file?.definition?.parameters);
  if (file) {
    // Refuse to call anything from a definition with errors; warnings are shown but do not stop it.
    // solution.yaml too: its settings (limits, timeouts) shape the run, and a broken one is not ignored.
    const only = new Set([file.yaml.file, ...(solution.settings ? [solution.settings.yaml.file] : [])]);
    const { diagnostics, errors } = await validateSolution(solution, { only });
    for (const d of diagnostics) process.stderr.write(`${diagnosticLine(d)}\n`);
    if (errors > 0)
      throw new DefinitionError(
        `function '${name}' has ${counted(errors, 'error')}; fix them first`,
        diagnostics,
      );
  }
  // Queries, guards, conversions and error tables use the local state folder; other functions never touch it.
  const d = file?.definition;
  const writesErrorTables = d?.error?.some((h) => h.operations?.length);
  const store =
    d?.queries || d?.guard || d?.conversions || writesErrorTables
      ? (await import('../store-path.js')).openStore(solution.root, options.db)
      : undefined;
  const runtime = await cliRuntime(solution, store, options);
  if (options.verbose) runtime.on(trace);
  // On a terminal (and not tracing every request already), a slow run says what it waits for.
  const waiting =
    process.stderr.isTTY && !options.verbose
      ? waitingReporter({
          write: (text) => process.stderr.write(text),
          now: () => performance.now(),
          every: (ms, tick) => {
            const timer = setInterval(tick, ms).unref();
            return () => clearInterval(timer);
          },
        })
      : undefined;
  if (waiting) runtime.on(waiting.onEvent);
  const interrupt = onInterrupt();
  // run gives page 1 of a paged function; that more follow is said, never fetched.
  let morePages = false;
  try {
    const result = await executeOfferingLogin(
      // Cleared when the call ends, before a login question or the output.
      () =>
        runtime
          .execute(
            name,
            parameters,
            {},
            {
              signal: interrupt.signal,
              onMorePages: () => {
                morePages = true;
              },
            },
          )
          .finally(() => waiting?.done()),
      solution.root,
    ).catch((error: unknown) => {
      if (interrupt.interrupted) {
        // run writes tables only through a failed guard's or an error handler's operations, once a
        // call is decided; a cancelled call is neither, so nothing local changed.
        throw new InterruptedError(
          `run interrupted: '${name}' stopped before it finished; no output, nothing written locally (the service may have received the request)`,
        );
      }
      // A failure shaped by the older `errorTransform` still gives its output; the exit code says it failed.
      const output = (error as { output?: unknown }).output;
      if (output !== undefined) process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
      throw error;
    });
    if (result.status === 'skipped') process.stderr.write(`restfn: ${name} skipped: ${result.reason}\n`);
    await printFiltered(result.status === 'ok' ? result.output : null, options);
    if (morePages) process.stderr.write(`${morePagesNote(name, d?.continuation?.when)}\n`);
  } finally {
    interrupt.dispose();
    await runtime.close();
    store?.close();
  }
}

/**
 * On a terminal, a function whose OAuth credential needs a login offers to start it, then runs once
 * more. Elsewhere (pipes, CI) the LOGIN_REQUIRED error stands (exit 4).
 */
async function executeOfferingLogin<T>(execute: () => Promise<T>, solutionRoot: string): Promise<T> {
  try {
    return await execute();
  } catch (error) {
    const key =
      error instanceof CredentialError && error.code === 'LOGIN_REQUIRED' ? error.credential : undefined;
    if (!key || !process.stdin.isTTY || !process.stderr.isTTY) throw error;
    // Loaded only for the question: readline is no part of an ordinary run's start-up.
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question(`${(error as Error).message}\nLog in to '${key}' now? [Y/n] `);
    rl.close();
    if (/^n/i.test(answer.trim())) throw error;
    const [{ login }, { openCredentials }] = await Promise.all([
      import('../../auth/login.js'),
      import('../credentials.js'),
    ]);
    await login(openCredentials(solutionRoot), key, {
      clock: SYSTEM_CLOCK,
      onUrl: (url) => process.stderr.write(`Open this address in a browser to log in:\n${url}\n`),
    });
    return execute();
  }
}

/** The note after page 1 of a paged function whose answer says more pages follow. */
export function morePagesNote(name: string, when: unknown): string {
  const why = typeof when === 'string' ? ` (continuation.when ${when} held)` : '';
  return `restfn: ${name} gave page 1 only; the service has more pages${why}: 'restfn sync' fills a datasource using ${name} with all of them`;
}
