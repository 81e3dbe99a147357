import { actionSteps, namedActions } from '../../definition/action-steps.js';
import type { ActionFile } from '../../definition/schema/index.js';
import { loadSolution, type Solution, type SourceFile } from '../../definition/solution.js';
import { validateSolution } from '../../definition/validate.js';
import type { Alert } from '../../errors/alerts.js';
import { ERROR_CODES, isErrorCode } from '../../errors/codes.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { printable } from '../../errors/printable.js';
import { UsageError } from '../../errors/restfn-error.js';
import { type ActionResult, isScreenStep, type StepResult, walkSteps } from '../../runtime/action.js';
import { checkParameterNames } from '../../runtime/actions/files.js';
import { ActionStepError, CommandFailedError } from '../../runtime/errors.js';
import type { Runtime } from '../../runtime/runtime.js';
import { checkActionPaths } from '../action-paths.js';
import { alertLine, type QueuedCall } from '../alerts.js';
import { diagnosticLine } from '../diagnostic-line.js';
import { InterruptedError } from '../errors.js';
import { onInterrupt } from '../interrupt.js';
import { printFiltered } from '../output-filter.js';
import { counted } from '../plural.js';
import { cliRuntime } from '../runtime.js';
import { solutionDir } from '../solution-dir.js';
import { openStore } from '../store-path.js';
import { trace } from '../trace.js';
import type { ActionCliOptions } from './action.js';

/** `restfn action` (loaded when the command runs; its options are in action.ts). */
export async function action(name: string, options: ActionCliOptions): Promise<void> {
  const solution = loadSolution(solutionDir(options.solution));
  const file = solution.files.find((f) => f.kind === 'action' && f.name === name) as
    | SourceFile<'action'>
    | undefined;
  // `-p x=1` for a global action (one that declares parameters) is `-p action.parameters.x=1`: a
  // bare name is a parameter, declared or not (a typo is then PARAMETER_UNKNOWN, naming the closest).
  const declared = Object.keys(file?.definition?.parameters ?? {}).length > 0;
  const pairs = options.set.map((pair) => {
    const key = pair.slice(0, Math.max(pair.indexOf('='), 0));
    return declared && key !== '' && !key.includes('.') && !CONTEXT_ROOTS.has(key)
      ? `action.parameters.${pair}`
      : pair;
  });
  const context = parseContext(options.context, pairs);
  if (file) {
    // The action, the actions it starts and the functions they call must be valid; problems
    // elsewhere do not stop it.
    const only = new Set([solution.settings?.yaml.file].filter((f) => f !== undefined));
    const visit = (f: SourceFile<'action'>) => {
      if (only.has(f.yaml.file)) return;
      only.add(f.yaml.file);
      if (!f.definition) return;
      for (const fn of functionsCalled(f.definition)) {
        const fnFile = solution.functions.get(fn);
        if (fnFile) only.add(fnFile.yaml.file);
      }
      for (const { name: next } of namedActions(f.definition)) {
        const nextFile = solution.files.find((g) => g.kind === 'action' && g.name === next);
        if (nextFile) visit(nextFile as SourceFile<'action'>);
      }
    };
    visit(file);
    const { diagnostics, errors } = await validateSolution(solution, { only });
    for (const d of diagnostics) process.stderr.write(`${diagnosticLine(d)}\n`);
    if (errors > 0)
      throw new DefinitionError(
        `action '${name}' has ${counted(errors, 'error')}; fix them first`,
        diagnostics,
      );
    checkParameterNames(file, parametersGiven(pairs));
    checkActionPaths(solution, file, pairs);
  }
  const store = openStore(solution.root, options.db);
  // Alerts wait for the result: one an earlier queued command raised (the push before this run's
  // command stopped at it) is then worded after the command the user just queued.
  const alerts: Alert[] = [];
  const runtime = await cliRuntime(solution, store, options, (event) => {
    if (event.type === 'alert') alerts.push(event.alert);
  });
  if (options.verbose) runtime.on(trace);
  const interrupt = onInterrupt();
  let line: (alert: Alert) => string = (alert) => alertLine(alert);
  try {
    const result = await runtime
      .action(name, context, { push: options.push, signal: interrupt.signal })
      .catch((error: unknown) => {
        if (!interrupt.interrupted) throw error;
        throw new InterruptedError(
          `action interrupted: '${name}' stopped while its command was being sent; the local change and the command are kept ('restfn queue push' sends it; the service may have received it, and the idempotency key keeps a resend from applying twice)`,
        );
      });
    line = alertWording(result, runtime, solution);
    for (const alert of alerts.splice(0)) process.stderr.write(`${line(alert)}\n`);
    const failedCommand = walkSteps(result)
      .map(({ step }) => step)
      .find((s): s is ActionResult => !isScreenStep(s) && s.command?.state === 'failed');
    // A failure reported inside the result (a list's, one onError handled, a follow-up's) is the
    // exit's: its line says 'failed' and the error line after says why, once.
    const told = failedCommand ? undefined : toldFailure(result);
    // The result as JSON on stdout (for programs); one line per step, nested as they ran, on stderr.
    await printFiltered(shown(result), options);
    for (const { step, depth } of walkSteps(result))
      process.stderr.write(
        `${printable(`restfn: ${'  '.repeat(depth)}${describe(step, step === told?.step)}`)}\n`,
      );
    if (failedCommand) {
      throw new CommandFailedError(
        `${failedCommand.command!.error ? `${failedCommand.command!.error.code}: ${failedCommand.command!.error.message}` : 'the service refused the change'}; ${failedCommand.method === 'functionCall' ? 'the call' : 'the local change stays and the command'} is kept as failed: fix the cause, then 'restfn queue retry ${failedCommand.command!.id}' (or 'restfn queue delete ${failedCommand.command!.id}' to drop it)`,
        failedCommand.command!.id,
      );
    }
    if (told && interrupt.interrupted) {
      // Ctrl-C stopped a step after others ran (a follow-up, a list's action): what ran is above.
      throw new InterruptedError(
        `action interrupted: '${name}' stopped at a later step; what ran is printed above and stays done (queued commands go with 'restfn queue push')`,
      );
    }
    if (told) throw new ActionStepError(isErrorCode(told.code) ? told.code : 'INTERNAL', told.message);
  } finally {
    // A run that failed before its result still shows every alert, as raised.
    for (const alert of alerts.splice(0)) process.stderr.write(`${line(alert)}\n`);
    interrupt.dispose();
    await runtime.close();
    store.close();
  }
}

/**
 * How this run's alerts read. An alert from a function none of this run's commands calls is an
 * earlier queued command's: the push stopped at it (offline), before the command this run queued.
 * Its line names that command's call first (`PUT .../tickets/{id}`), the user's, not the earlier
 * `POST .../tickets` alone.
 */
function alertWording(result: StepResult, runtime: Runtime, solution: Solution): (alert: Alert) => string {
  const steps = walkSteps(result)
    .map(({ step }) => step)
    .filter((s): s is ActionResult => !isScreenStep(s));
  const outcomes = steps.flatMap((s) => s.push?.outcomes ?? []);
  const inQueue = new Map(runtime.queuedCommands().map((c) => [c.id, c.function]));
  const own = new Set<string>();
  let queued: QueuedCall | undefined;
  for (const { action, command } of steps) {
    if (!command) continue;
    const fn = inQueue.get(command.id) ?? outcomes.find((o) => o.id === command.id)?.function;
    if (!fn) continue;
    own.add(fn);
    const definition = solution.functions.get(fn)?.definition;
    if (command.state === 'queued' && definition && !queued)
      queued = { action, command: command.id, call: `${definition.method} ${definition.url}` };
  }
  return (alert) => {
    if (!queued || own.has(alert.function)) return alertLine(alert);
    const blocking = outcomes.find((o) => o.function === alert.function && o.state !== 'done')?.id;
    return alertLine(alert, { queued, blocking });
  };
}

/** The first `-p` path segments that are the screen's, never a global action's parameter. */
const CONTEXT_ROOTS = new Set(['current', 'components', 'jig', 'user', 'action', 'inputs', 'datasources']);

/** The global action's parameter names the `-p` paths give (`action.parameters.<name>...`). */
function parametersGiven(pairs: readonly string[]): string[] {
  return pairs
    .map((pair) => pair.slice(0, Math.max(pair.indexOf('='), 0)).split('.'))
    .filter((path) => path[0] === 'action' && path[1] === 'parameters' && path[2])
    .map((path) => path[2]!);
}

/**
 * The failure the exit tells, and the step that reported it: the action's own (a list's, one
 * onError handled), else the first follow-up that failed after the action itself ran.
 */
function toldFailure(result: StepResult): { step: StepResult; code: string; message: string } | undefined {
  const step = walkSteps(result)
    .map(({ step }) => step)
    .find((s) => s.error !== undefined);
  if (!step?.error) return undefined;
  const { code, message } = step.error;
  if (step === result || isScreenStep(result)) {
    // Most runtime messages name their action already; a list's summary does not.
    const named = isScreenStep(step) || message.includes(`action '${step.action}'`);
    return { step, code, message: named ? message : `action '${step.action}' (${step.type}): ${message}` };
  }
  return {
    step,
    code,
    message: `action '${result.action}' ran${ranDetail(result)}, but its onSuccess failed: ${message}`,
  };
}

/** What an action that ran did, for a message saying what came after failed. */
function ranDetail(result: ActionResult): string {
  if (result.command)
    return ` (its command is ${result.command.state === 'done' ? 'sent' : result.command.state})`;
  if (result.record !== undefined || result.method !== undefined) return ' (its local change is made)';
  if (result.synced) return ' (its tables are synced)';
  return '';
}

/** The functions an action file's data actions call. */
function functionsCalled(definition: ActionFile): string[] {
  const out: string[] = [];
  for (const { step } of actionSteps(definition)) {
    if (step.type === 'action.sync-entities') {
      for (const e of step.options.entities) if (typeof e !== 'string' && e.function) out.push(e.function);
    } else if ('options' in step && step.options && 'function' in step.options) {
      const fn = step.options.function;
      if (typeof fn === 'string') out.push(fn);
    }
  }
  return out;
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

/** What `--json` shows: the result without the push's per-command list. */
function shown(result: StepResult): unknown {
  if (isScreenStep(result)) return result;
  const { push, next, steps, ...rest } = result;
  return {
    ...rest,
    ...(push
      ? { pushed: { sent: push.sent, waiting: push.waiting, failed: push.failed, remaining: push.remaining } }
      : {}),
    ...(steps ? { steps: steps.map(shown) } : {}),
    ...(next ? { next: Array.isArray(next) ? next.map(shown) : shown(next as StepResult) } : {}),
  };
}

/** One line per step, saying what changed locally and where the remote call stands. */
function describe(step: StepResult, told = false): string {
  const failure = step.error && (told ? 'failed' : `failed: ${step.error.code}: ${step.error.message}`);
  if (isScreenStep(step)) {
    const text = [step.title, step.description].filter((t) => t !== undefined).join(': ');
    return `${step.type}${text === '' ? '' : ` (${text})`}: ${failure ?? 'a step for a screen; nothing to do here'}`;
  }
  const head = `${step.action}: ${step.type}`;
  if (step.skipped) return `${head}: skipped (${step.skipped})`;
  if (failure) return `${head}: ${failure}`;
  if (step.synced)
    return `${head}: ${step.synced.map((s) => `'${s.entity}' ${counted(s.records, 'record')}${s.function ? ` from ${s.function}` : ''}`).join(', ') || 'nothing'}`;
  if (step.commands) return `${head}: ${step.commands.join(', ') || 'no commands'}`;
  // The list of records holds one step per record, each told as an execute-entity's is.
  if (step.type === 'action.execute-entities' && step.steps)
    return `${head}: ${counted(step.steps.length, 'record')}`;
  if (step.method === undefined) return head;
  const where = step.record === undefined ? `'${step.entity}'` : `'${step.entity}' record '${step.record}'`;
  const local =
    step.method === 'functionCall'
      ? `${step.action}: function call`
      : `${step.action}: ${where} ${PAST[step.method]} locally`;
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
