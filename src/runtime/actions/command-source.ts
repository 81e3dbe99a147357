import type { Solution } from '../../definition/solution.js';
import type { Command } from '../../local/command-queue.js';
import { sha256Hex } from '../../portable/digest.js';
import type { ExecutionContext } from '../context.js';

/**
 * Which definition a queued command was built from: a hash of the action file its step is written
 * in and of the function it calls, as data (a comment or a blank line changes nothing). Undefined
 * when either file is missing or invalid.
 */
export function definitionHash(solution: Solution, action: string, fn: string): string | undefined {
  const actionData = solution.files.find((f) => f.kind === 'action' && f.name === action)?.data;
  const fnFile = solution.functions.get(fn);
  if (actionData === undefined || !fnFile?.definition) return undefined;
  return sha256Hex(JSON.stringify([actionData, fnFile.data])).slice(0, 16);
}

/**
 * `current`: built from the files as they are; `changed`: the action's or the function's file
 * changed since (or is gone): the command sends what the older definition built; `unknown`: queued
 * before restfn kept this (older queues), or a command no action built.
 */
export type DefinitionState = 'current' | 'changed' | 'unknown';

export function definitionState(solution: Solution, command: Command): DefinitionState {
  const source = command.payload.source;
  if (!source || command.function === null) return 'unknown';
  return definitionHash(solution, source.action, command.function) === source.hash ? 'current' : 'changed';
}

/** Names the engine sets on `@ctx` itself: not what the screen gave, so not kept with a command. */
const ENGINE_MADE = new Set([
  'user',
  'parameters',
  'queries',
  'correlationId',
  'solution',
  'organization',
  'system',
  'expressions',
  'datasources',
  'entity',
  // A call's own parts, never an action's input (and a request may carry what a credential filled).
  'request',
  'response',
  'output',
  'error',
  'guard',
]);

/**
 * What a step's parameters were evaluated with, to evaluate them again: the screen's values
 * (`current`, `components`, `action.parameters`, inputs) and the record. The engine's own parts
 * (user, solution, settings) are read fresh when the command is rebuilt.
 */
export function contextSnapshot(ctx: ExecutionContext): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(ctx)) {
    if (!ENGINE_MADE.has(key) && value !== undefined) kept[key] = value;
  }
  // Through JSON, as the queue stores it: a rebuild sees what a later process would.
  return JSON.parse(JSON.stringify(kept)) as Record<string, unknown>;
}
