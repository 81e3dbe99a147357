import type { ActionDefinition } from '../../definition/schema/index.js';
import type { PropertyPath } from '../../definition/yaml-file.js';
import { RestfnError } from '../../errors/restfn-error.js';
import type { Command, CommandPayload } from '../../local/command-queue.js';
import type { QueueEngine } from '../push.js';
import { definitionHash } from './command-source.js';
import { stepParameters } from './entity.js';
import { actionFile } from './files.js';
import { evaluator } from './step-context.js';

/** A command `restfn queue retry --rebuild` cannot rebuild from the current files. */
export class CommandRebuildError extends RestfnError {
  constructor(message: string) {
    super('COMMAND_REBUILD', message);
  }
}

const RECORD_STEPS = new Set(['action.execute-entity', 'action.execute-entities', 'action.submit-form']);

/**
 * The command built again from the current files: the step at the same place in the same action
 * file, its parameters evaluated with what the screen gave when the action ran (kept with the
 * command; a temporary id in it was replaced as the record's real id came). The command keeps its
 * id, record and place in the queue; only its payload changes.
 */
export async function rebuiltPayload(engine: QueueEngine, command: Command): Promise<CommandPayload> {
  const source = command.payload.source;
  if (!source) {
    throw new CommandRebuildError(
      `command '${command.id}' was queued before restfn kept what built it, so it cannot be rebuilt: run the action again, then 'restfn queue delete ${command.id}'`,
    );
  }
  const file = actionFile(engine, source.action);
  const step = stepAt(file.definition!, source.at);
  if (
    step === undefined ||
    !RECORD_STEPS.has(step.type) ||
    (step.options as { function?: string }).function !== command.function ||
    (step.options as { entity?: string }).entity !== command.entity
  ) {
    throw new CommandRebuildError(
      `command '${command.id}' cannot be rebuilt: action '${source.action}' no longer has the step that built it (a step calling ${command.function} for '${command.entity}' at ${source.at.join('.')}); run the action again, then 'restfn queue delete ${command.id}'`,
    );
  }
  const scope = { engine, file, context: source.context, options: {}, depth: 0 };
  const ev = evaluator(scope, source.at);
  ev.ctx.entity = command.entity ?? undefined;
  const parameters = await stepParameters(step as Parameters<typeof stepParameters>[0], ev);
  const hash = definitionHash(engine.solution, source.action, command.function!) ?? source.hash;
  return { ...command.payload, parameters, source: { ...source, hash } };
}

/** The step written at `at` in an action file (the path validation findings use). */
function stepAt(
  definition: { readonly action: ActionDefinition; readonly at: PropertyPath },
  at: PropertyPath,
): ActionDefinition | undefined {
  const root = definition.at;
  if (at.length < root.length || root.some((k, i) => at[i] !== k)) return undefined;
  let node: unknown = definition.action;
  for (const key of at.slice(root.length)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node !== null && typeof node === 'object' && 'type' in node ? (node as ActionDefinition) : undefined;
}
