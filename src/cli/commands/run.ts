import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { login } from '../../auth/login.js';
import { formatDiagnostic } from '../../definition/diagnostic.js';
import { loadSolution } from '../../definition/solution.js';
import { validateSolution } from '../../definition/validate.js';
import { SYSTEM_CLOCK } from '../../errors/clock.js';
import { CredentialError } from '../../errors/credential-error.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { printable } from '../../errors/printable.js';
import { UsageError } from '../../errors/restfn-error.js';
import type { ExecutionEvent } from '../../runtime/events.js';
import { openCredentials } from '../credentials.js';
import { cliRuntime } from '../runtime.js';
import { solutionDir } from '../solution-dir.js';
import { openStore } from '../store-path.js';
import { addUserOptions, type UserOptions } from '../user-options.js';

interface Options extends UserOptions {
  param: string[];
  params?: string;
  solution?: string;
  verbose?: boolean;
  db?: string;
}

export function registerRun(program: Command): void {
  addUserOptions(
    program
      .command('run')
      .description('execute one function: the output as JSON on stdout, diagnostics on stderr')
      .argument('<name>', 'function name')
      .option('-p, --param <name=value>', 'a parameter value (repeatable)', collect, [])
      .option('--params <json>', 'parameter values as a JSON object (-p values override)')
      .option('-s, --solution <dir>', 'solution folder (default: found from the current folder upward)')
      .option('-v, --verbose', 'trace requests and responses on stderr (credentials masked)')
      .option('--db <file>', 'local database for queries and guards (default: <solution>/.restfn/local.db)'),
  ).action(async (name: string, options: Options) => {
    const parameters = parseParameters(options);
    const solution = loadSolution(solutionDir(options.solution));
    const file = solution.functions.get(name);
    if (file) {
      // Refuse to call anything from a definition with errors; warnings are shown but do not stop it.
      const { diagnostics, errors } = await validateSolution(solution, { only: new Set([file.yaml.file]) });
      for (const d of diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
      if (errors > 0)
        throw new DefinitionError(`function '${name}' has ${errors} error(s); fix them first`, diagnostics);
    }
    // Queries, guards, conversions and error tables use the local state folder; other functions never touch it.
    const d = file?.definition;
    const writesErrorTables = d?.error?.some((h) => h.operations?.length);
    const store =
      d?.queries || d?.guard || d?.conversions || writesErrorTables
        ? openStore(solution.root, options.db)
        : undefined;
    const runtime = cliRuntime(solution, store, options);
    if (options.verbose) runtime.on(trace);
    try {
      const result = await executeOfferingLogin(() => runtime.execute(name, parameters), solution.root).catch(
        (error: unknown) => {
          // A failure shaped by the older `errorTransform` still gives its output; the exit code says it failed.
          const output = (error as { output?: unknown }).output;
          if (output !== undefined) process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
          throw error;
        },
      );
      if (result.status === 'skipped') process.stderr.write(`restfn: ${name} skipped: ${result.reason}\n`);
      process.stdout.write(
        `${JSON.stringify(result.status === 'ok' ? result.output : null, null, 2) ?? 'null'}\n`,
      );
    } finally {
      await runtime.close();
      store?.close();
    }
  });
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
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question(`${(error as Error).message}\nLog in to '${key}' now? [Y/n] `);
    rl.close();
    if (/^n/i.test(answer.trim())) throw error;
    await login(openCredentials(solutionRoot), key, {
      clock: SYSTEM_CLOCK,
      onUrl: (url) => process.stderr.write(`Open this address in a browser to log in:\n${url}\n`),
    });
    return execute();
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseParameters(options: Options): Record<string, unknown> {
  let parameters: Record<string, unknown> = {};
  if (options.params !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(options.params);
    } catch {
      throw new UsageError('--params must be a JSON object, for example --params \'{"id": "42"}\'');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new UsageError('--params must be a JSON object, for example --params \'{"id": "42"}\'');
    }
    parameters = { ...(parsed as Record<string, unknown>) };
  }
  for (const pair of options.param) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`-p takes name=value (got '${pair}')`);
    parameters[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return parameters;
}

/**
 * `--verbose`: requests and responses as they happen, to stderr; headers arrive already masked.
 * Control characters are escaped: a value or a service's header must not forge trace lines or
 * drive the terminal.
 */
function trace(event: ExecutionEvent): void {
  const lines: string[] = [];
  if (event.type === 'request') {
    lines.push(
      `> ${event.method} ${event.url}`,
      ...Object.entries(event.headers).map(([k, v]) => `> ${k}: ${v}`),
    );
    if (event.body !== undefined) lines.push(`> ${event.body}`);
  } else if (event.type === 'response') {
    lines.push(
      `< ${event.status} (${event.durationMs.toFixed(0)} ms)`,
      ...Object.entries(event.headers).map(([k, v]) => `< ${k}: ${v}`),
    );
  } else if (event.type === 'failed') {
    lines.push(`! ${event.code} [${event.correlationId}]`);
  } else if (event.type === 'succeeded') {
    lines.push(`= done in ${event.durationMs.toFixed(0)} ms [${event.correlationId}]`);
  }
  for (const line of lines) process.stderr.write(`${printable(line)}\n`);
}
