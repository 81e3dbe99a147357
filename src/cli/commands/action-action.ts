import { loadSolution, type SourceFile } from '../../definition/solution.js';
import { validateSolution } from '../../definition/validate.js';
import { ERROR_CODES, isErrorCode } from '../../errors/codes.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { printable } from '../../errors/printable.js';
import { UsageError } from '../../errors/restfn-error.js';
import type { ActionResult } from '../../runtime/action.js';
import { CommandFailedError } from '../../runtime/errors.js';
import { checkActionPaths } from '../action-paths.js';
import { diagnosticLine } from '../diagnostic-line.js';
import { InterruptedError } from '../errors.js';
import { onInterrupt } from '../interrupt.js';
import { cliRuntime } from '../runtime.js';
import { solutionDir } from '../solution-dir.js';
import { openStore } from '../store-path.js';
import { trace } from '../trace.js';
import type { ActionCliOptions } from './action.js';

/** `restfn action` (loaded when the command runs; its options are in action.ts). */
export async function action(name: string, options: ActionCliOptions): Promise<void> {
  const context = parseContext(options.context, options.set);
  const solution = loadSolution(solutionDir(options.solution));
  const file = solution.files.find((f) => f.kind === 'action' && f.name === name) as
    | SourceFile<'action'>
    | undefined;
  if (file) {
    // The action and the function it calls must be valid; problems elsewhere do not stop it.
    const d = file.definition;
    const fn = d?.type === 'action.execute-entity' ? d.options.function : undefined;
    const fnFile = fn === undefined ? undefined : solution.functions.get(fn);
    const only = new Set(
      [file, fnFile, solution.settings].filter((f) => f !== undefined).map((f) => f.yaml.file),
    );
    const { diagnostics, errors } = await validateSolution(solution, { only });
    for (const d of diagnostics) process.stderr.write(`${diagnosticLine(d)}\n`);
    if (errors > 0)
      throw new DefinitionError(`action '${name}' has ${errors} error(s); fix them first`, diagnostics);
    checkActionPaths(solution, file, options.set);
  }
  const store = openStore(solution.root, options.db);
  const runtime = await cliRuntime(solution, store, options);
  if (options.verbose) runtime.on(trace);
  const interrupt = onInterrupt();
  try {
    const result = await runtime
      .action(name, context, { push: options.push, signal: interrupt.signal })
      .catch((error: unknown) => {
        if (!interrupt.interrupted) throw error;
        throw new InterruptedError(
          `action interrupted: '${name}' stopped while its command was being sent; the local change and the command are kept ('restfn queue push' sends it; the service may have received it, and the idempotency key keeps a resend from applying twice)`,
        );
      });
    process.stdout.write(`${JSON.stringify(shown(result), null, 2)}\n`);
    for (let step: ActionResult['next'] = result; step; step = 'action' in step ? step.next : undefined) {
      process.stderr.write(`${printable(`restfn: ${describe(step)}`)}\n`);
    }
    const failed = findFailed(result);
    if (failed) {
      throw new CommandFailedError(
        `${failed.command!.error?.message ?? 'the service refused the change'}; ${failed.method === 'functionCall' ? 'the call' : 'the local change stays and the command'} is kept as failed: fix the cause, then 'restfn queue retry ${failed.command!.id}' (or 'restfn queue delete ${failed.command!.id}' to drop it)`,
        failed.command!.id,
      );
    }
  } finally {
    interrupt.dispose();
    await runtime.close();
    store.close();
  }
}

/** `--context` JSON, then each `-p path=value` over it (dotted paths make the objects on the way). */
export function parseContext(json: string | undefined, pairs: readonly string[]): Record<string, unknown> {
  let context: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new UsageError(
        '--context must be a JSON object, for example --context \'{"current":{"item":{"id":"c-7"}}}\'',
      );
    }
    context = parsed as Record<string, unknown>;
  }
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const path = at <= 0 ? [] : pair.slice(0, at).split('.');
    if (path.length === 0 || path.some((p) => p === '')) {
      throw new UsageError(
        `-p takes path=value with a dotted path, for example -p current.item.id=c-7 (got '${pair}')`,
      );
    }
    if (path.some((p) => p === '__proto__' || p === 'constructor' || p === 'prototype')) {
      throw new UsageError(`-p: '${pair.slice(0, at)}' cannot be a path (it names a JavaScript internal)`);
    }
    let target = context;
    for (const [i, key] of path.slice(0, -1).entries()) {
      const next = target[key];
      if (next === undefined) target[key] = {};
      else if (typeof next !== 'object' || next === null || Array.isArray(next)) {
        // `-p a=1 -p a.b=2`: the second would silently throw the first away.
        throw new UsageError(
          `-p ${pair}: '${path.slice(0, i + 1).join('.')}' has a value already (${JSON.stringify(next)}), so it cannot hold '${path[i + 1]}'`,
        );
      }
      target = target[key] as Record<string, unknown>;
    }
    target[path.at(-1)!] = pair.slice(at + 1);
  }
  return context;
}

/** What stdout shows: the result without the push's per-command list. */
function shown(result: ActionResult | { type: string; ranHere: false }): unknown {
  if (!('action' in result)) return result;
  const { push, next, ...rest } = result;
  return {
    ...rest,
    ...(push
      ? { pushed: { sent: push.sent, waiting: push.waiting, failed: push.failed, remaining: push.remaining } }
      : {}),
    ...(next ? { next: shown(next) } : {}),
  };
}

function findFailed(result: ActionResult): ActionResult | undefined {
  if (result.command?.state === 'failed') return result;
  return result.next && 'action' in result.next ? findFailed(result.next) : undefined;
}

/** One line per step, saying what changed locally and where the remote call stands. */
function describe(step: ActionResult | { type: string; ranHere: false }): string {
  if (!('action' in step)) return `next: ${step.type} (a step for a screen; nothing to do here)`;
  if (step.commands) return `${step.action}: ${step.type}: ${step.commands.join(', ') || 'no commands'}`;
  const where = step.record === undefined ? `'${step.entity}'` : `'${step.entity}' record '${step.record}'`;
  const local =
    step.method === 'functionCall'
      ? `${step.action}: function call`
      : `${step.action}: ${where} ${PAST[step.method!]} locally`;
  const command = step.command;
  if (!command) return `${local}; nothing to send`;
  switch (command.state) {
    case 'done':
      // A done command's error is a note on what happened here afterwards (RECORD_REPLACED, ...).
      return `${local} and sent (command ${command.id})${command.error ? `; warning: ${command.error.code}: ${command.error.message}` : ''}`;
    case 'queued':
      return `${local}; queued as command ${command.id} ('restfn queue push' sends it)`;
    case 'waiting':
      return `${local}; queued as command ${command.id}, not sent yet: ${command.error?.message ?? 'waiting'}; ${whatNext(command.error?.code)}`;
    case 'failed':
      return `${local}; command ${command.id} failed`;
  }
}

/** A waiting command goes at the next push, but a credential problem must be fixed first. */
function whatNext(code: string | undefined): string {
  if (code === 'LOGIN_REQUIRED') return "log in ('restfn login'), then 'restfn queue push'";
  if (isErrorCode(code) && ERROR_CODES[code].family === 'credentials')
    return "fix the credential ('restfn credentials'), then 'restfn queue push'";
  return "'restfn queue push' tries again";
}

const PAST = {
  create: 'created',
  update: 'updated',
  save: 'saved',
  delete: 'deleted',
  functionCall: 'called',
};
