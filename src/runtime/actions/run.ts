import {
  type ActionDefinition,
  type ActionListAction,
  type ConfirmAction,
  type ExecuteActionAction,
  type FollowUp,
  type Notification,
  QUEUE_ACTION_TYPES,
  SCREEN_STEP_TYPES,
} from '../../definition/schema/index.js';
import type { SourceFile } from '../../definition/solution.js';
import type { PropertyPath } from '../../definition/yaml-file.js';
import { DefinitionError } from '../../errors/definition-error.js';
import type { CallContext } from '../context.js';
import type { QueueEngine } from '../push.js';
import { executeEntities, executeEntity } from './entity.js';
import { describeError, failed, failure } from './failure.js';
import { actionFile, actionParameters } from './files.js';
import { queueAction } from './queue.js';
import { type Evaluator, evaluator, values } from './step-context.js';
import { syncEntities } from './sync-entities.js';
import {
  type ActionOptions,
  type ActionResult,
  isScreenStep,
  type Scope,
  type ScreenStep,
  type StepResult,
} from './types.js';

/** Actions that start each other by name (follow-ups, execute-action) deeper than this are a cycle. */
const MAX_CHAIN = 8;

const SCREEN: ReadonlySet<string> = new Set(SCREEN_STEP_TYPES);
const QUEUE: ReadonlySet<string> = new Set(QUEUE_ACTION_TYPES);

/**
 * Runs the action file `name` with what a screen gives (`current.item`, `components`, `jig.inputs`,
 * `user`, and a global action's `action.parameters`): its data actions run here, in order (a
 * record's local change and its queued command in one transaction, then a push unless `push:
 * false`), then `onSuccess` (after a failure, `onError`). Steps only a screen can take are reported.
 */
export async function runAction(
  engine: QueueEngine,
  name: string,
  context: CallContext,
  options: ActionOptions,
): Promise<ActionResult> {
  const given = (context.action as { parameters?: Record<string, unknown> } | undefined)?.parameters ?? {};
  return runFile(engine, actionFile(engine, name), context, given, options, 0);
}

async function runFile(
  engine: QueueEngine,
  file: SourceFile<'action'>,
  context: CallContext,
  given: Readonly<Record<string, unknown>>,
  options: ActionOptions,
  depth: number,
): Promise<ActionResult> {
  const { action, at } = file.definition!;
  const outer: Scope = { engine, file, context, options, depth };
  const parameters = await actionParameters(file, given, evaluator(outer, []));
  const scope: Scope = {
    ...outer,
    context: { ...context, action: { ...(context.action as object | undefined), parameters } },
  };
  const result = await runStep(scope, action, [...at]);
  // A file that is a screen step only: what a screen would do, as the file's result.
  return isScreenStep(result) ? { action: file.name, type: action.type, steps: [result] } : result;
}

/** One action written at `at` in the scope's file: `when`, the action, then its follow-ups. */
async function runStep(scope: Scope, step: ActionDefinition, at: PropertyPath): Promise<StepResult> {
  const name = scope.file.name;
  const ev = evaluator(scope, at);
  if (step.when !== undefined && !truthy(await ev.field(['when'], step.when)))
    return { action: name, type: step.type, skipped: 'its when is false' };
  if (SCREEN.has(step.type))
    return screenStep(step.type, step.options as Record<string, unknown> | undefined, ev);
  const o = (step as Exclude<ActionDefinition, { type: (typeof SCREEN_STEP_TYPES)[number] }>).options;

  let result: ActionResult;
  try {
    result = await runData(scope, step, at, ev);
  } catch (error) {
    // onError handles the failure: it runs, and the failure is reported rather than thrown.
    if (o.onError === undefined) throw error;
    const next = await followUps(scope, o.onError, [...at, 'options', 'onError']);
    return { action: name, type: step.type, error: describeError(error), next };
  }
  if (failed(result)) {
    if (o.onError === undefined) return result;
    return { ...result, next: await followUps(scope, o.onError, [...at, 'options', 'onError']) };
  }
  const goBack = 'goBack' in o && o.goBack !== undefined && o.goBack !== false ? o.goBack : undefined;
  if (o.onSuccess === undefined && goBack === undefined) return result;
  // A follow-up's failure is reported in `next`, never thrown: what the action already did (its
  // record, its temp id, its command) must reach the caller either way.
  const next =
    o.onSuccess === undefined ? [] : await followUps(scope, o.onSuccess, [...at, 'options', 'onSuccess']);
  const ran = Array.isArray(next) ? next : [next];
  const back: ScreenStep[] =
    goBack === undefined || ran.some(failed)
      ? []
      : [{ type: 'goBack', ranHere: false, title: String(goBack) }];
  const all = [...ran, ...back];
  return { ...result, next: all.length === 1 ? all[0]! : all };
}

async function runData(
  scope: Scope,
  step: ActionDefinition,
  at: PropertyPath,
  ev: Evaluator,
): Promise<ActionResult> {
  const { engine, file, options } = scope;
  switch (step.type) {
    case 'action.execute-entity':
    case 'action.submit-form':
      return executeEntity(engine, file.name, step, ev, options, at);
    case 'action.execute-entities':
      return executeEntities(engine, file.name, step, ev, options, at);
    case 'action.sync-entities':
      return syncEntities(engine, file.name, step, ev, scope, options);
    case 'action.action-list':
      return actionList(scope, step, at);
    case 'action.execute-action':
      return executeAction(scope, step, ev);
    case 'action.confirm':
      return confirm(scope, step, at);
    default:
      if (QUEUE.has(step.type)) return queueAction(engine, file.name, step as never, ev);
      throw new DefinitionError(`action '${file.name}': ${step.type} is a step for a screen`);
  }
}

/**
 * `action.action-list`. Sequential: in order, and a failure (an error, a failed command) stops the
 * list. Not sequential: every action runs, in order here, and the failures are reported after.
 * Either way the list reports its failure in `error` rather than throwing, with what ran.
 */
async function actionList(scope: Scope, step: ActionListAction, at: PropertyPath): Promise<ActionResult> {
  const name = scope.file.name;
  const sequential = step.options.isSequential === true;
  const steps: StepResult[] = [];
  const failures: Array<{ index: number; error: { code: string; message: string } }> = [];
  for (const [i, inner] of step.options.actions.entries()) {
    let result: StepResult;
    try {
      result = await runStep(scope, inner, [...at, 'options', 'actions', i]);
    } catch (error) {
      result = { action: name, type: inner.type, error: describeError(error) };
    }
    steps.push(result);
    if (!failed(result)) continue;
    failures.push({ index: i, error: failure(result)! });
    if (sequential) break;
  }
  if (failures.length === 0) return { action: name, type: step.type, steps };
  const first = failures[0]!;
  const message = sequential
    ? `actions[${first.index}] failed, so the sequential list stopped (${first.index} of ${step.options.actions.length} ran before it): ${first.error.message}`
    : `${failures.length} of ${step.options.actions.length} actions failed (${failures.map((f) => `actions[${f.index}]`).join(', ')}); the others ran: ${first.error.message}`;
  return { action: name, type: step.type, steps, error: { code: first.error.code, message } };
}

/** `action.execute-action`: the global action by name, with its parameters read here. */
async function executeAction(scope: Scope, step: ExecuteActionAction, ev: Evaluator): Promise<ActionResult> {
  deeper(scope, step.options.action);
  const target = actionFile(scope.engine, step.options.action);
  const given = await values(step.options.parameters, ['options', 'parameters'], ev);
  const inner = await runFile(scope.engine, target, scope.context, given, scope.options, scope.depth + 1);
  return {
    action: scope.file.name,
    type: step.type,
    steps: [inner],
    ...(failed(inner) ? { error: failure(inner)! } : {}),
  };
}

/** `action.confirm`: a screen asks first. Here the answer is yes: the question is a screen step, then onConfirmed runs. */
async function confirm(scope: Scope, step: ConfirmAction, at: PropertyPath): Promise<ActionResult> {
  const modal = step.options.modal as { title?: unknown; description?: unknown } | undefined;
  const question: ScreenStep = {
    type: step.type,
    ranHere: false,
    ...(await texts(
      evaluator(scope, at),
      {
        title: modal?.title === undefined ? ['options', 'title'] : ['options', 'modal', 'title'],
        description: ['options', 'modal', 'description'],
      },
      step,
    )),
  };
  const inner = await runStep(scope, step.options.onConfirmed, [...at, 'options', 'onConfirmed']);
  return {
    action: scope.file.name,
    type: step.type,
    steps: [question, inner],
    ...(failed(inner) ? { error: failure(inner)! } : {}),
  };
}

/**
 * `onSuccess`/`onError`: an action file by name, an action in place, a notification, or a list of
 * them in order. A follow-up that fails (an error, or a failure it reports) is reported with its
 * `error`, and the ones after it do not run.
 */
async function followUps(
  scope: Scope,
  raw: FollowUp | FollowUp[],
  path: PropertyPath,
): Promise<StepResult | StepResult[]> {
  const one = async (item: FollowUp, at: PropertyPath): Promise<StepResult> => {
    try {
      if (typeof item === 'string') {
        deeper(scope, item);
        const file = actionFile(scope.engine, item);
        return await runFile(scope.engine, file, scope.context, {}, scope.options, scope.depth + 1);
      }
      if (!('type' in item)) return await notification(item, evaluator(scope, at));
      deeper(scope, item.type);
      return await runStep({ ...scope, depth: scope.depth + 1 }, item, at);
    } catch (error) {
      return failedFollowUp(scope, item, error);
    }
  };
  if (!Array.isArray(raw)) return one(raw, path);
  const out: StepResult[] = [];
  for (const [i, item] of raw.entries()) {
    const result = await one(item, [...path, i]);
    out.push(result);
    if (failed(result)) break;
  }
  return out;
}

/** A follow-up that threw, as a step reporting its failure. */
function failedFollowUp(scope: Scope, item: FollowUp, error: unknown): StepResult {
  const reported = describeError(error);
  if (typeof item === 'string') {
    const file = scope.engine.solution.files.find((f) => f.kind === 'action' && f.name === item) as
      | SourceFile<'action'>
      | undefined;
    // Started by name: the file's own step, or (no such file) a step of the file that names it.
    return file?.definition
      ? { action: item, type: file.definition.action.type, error: reported }
      : { action: scope.file.name, type: 'action.execute-action', error: reported };
  }
  if (!('type' in item)) return { type: 'notification', ranHere: false, error: reported };
  return { action: scope.file.name, type: item.type, error: reported };
}

/** A notification (`{ title, description }`): a step for a screen, its texts evaluated. */
async function notification(item: Notification, ev: Evaluator): Promise<ScreenStep> {
  return {
    type: 'notification',
    ranHere: false,
    ...(await texts(ev, { title: ['title'], description: ['description'] }, item)),
  };
}

function deeper(scope: Scope, what: string): void {
  if (scope.depth + 1 >= MAX_CHAIN) {
    throw new DefinitionError(
      `actions start each other (onSuccess, onError, execute-action) more than ${MAX_CHAIN} deep from '${scope.file.name}' (next: ${what}): a cycle`,
    );
  }
}

/**
 * A step only a screen takes, with the texts it would show evaluated (the platform's samples write
 * `title`, `linkTo`, `url` and a modal's `description` as expressions).
 */
async function screenStep(
  type: string,
  options: Record<string, unknown> | undefined,
  ev: Evaluator,
): Promise<ScreenStep> {
  const o = options ?? {};
  const title = ['title', 'linkTo', 'url'].find((k) => o[k] !== undefined);
  const modal = o.modal as { description?: unknown } | undefined;
  const description =
    o.description !== undefined
      ? ['description']
      : modal?.description !== undefined
        ? ['modal', 'description']
        : undefined;
  return {
    type,
    ranHere: false,
    ...(await texts(
      ev,
      {
        ...(title === undefined ? {} : { title: ['options', title] }),
        ...(description === undefined ? {} : { description: ['options', ...description] }),
      },
      { options: o },
    )),
  };
}

/** Texts a screen shows, each read at its path in `from` (relative to the evaluator's step) and evaluated. */
async function texts(
  ev: Evaluator,
  at: { title?: PropertyPath; description?: PropertyPath },
  from: unknown,
): Promise<{ title?: string; description?: string }> {
  const out: { title?: string; description?: string } = {};
  for (const key of ['title', 'description'] as const) {
    const path = at[key];
    if (path === undefined) continue;
    const raw = path.reduce<unknown>(
      (v, k) => (v as Record<string | number, unknown> | undefined)?.[k],
      from,
    );
    if (raw === undefined) continue;
    const value = await ev.field(path, raw);
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
  }
  return out;
}

/** JSONata's truth: false, null, 0, '' and an empty list are false. */
function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.some(truthy) : Boolean(value);
}
