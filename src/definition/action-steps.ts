import type { ActionDefinition, ActionFile, FollowUp } from './schema/index.js';
import type { PropertyPath } from './yaml-file.js';

/** An action written somewhere in an action file, with where. */
export interface StepAt {
  readonly step: ActionDefinition;
  readonly at: PropertyPath;
}

/** A name an action file starts another action file by (`onSuccess: name`, `execute-action`). */
export interface NameAt {
  readonly name: string;
  readonly at: PropertyPath;
}

/**
 * Every action of a file, depth first in the order they run: the action itself, a list's actions, a
 * confirm's onConfirmed, and actions written in place in `onSuccess`/`onError`/`onCancelled`.
 */
export function actionSteps(file: ActionFile): StepAt[] {
  const out: StepAt[] = [];
  const visit = (step: ActionDefinition, at: PropertyPath) => {
    out.push({ step, at });
    const o = (step.options ?? {}) as Record<string, unknown>;
    if (step.type === 'action.action-list')
      for (const [i, inner] of step.options.actions.entries()) visit(inner, [...at, 'options', 'actions', i]);
    if (step.type === 'action.confirm') visit(step.options.onConfirmed, [...at, 'options', 'onConfirmed']);
    for (const key of ['onSuccess', 'onError', 'onCancelled']) {
      for (const { value, path } of followUpList(o[key] as FollowUp | FollowUp[] | undefined, [
        ...at,
        'options',
        key,
      ]))
        if (typeof value === 'object' && 'type' in value) visit(value, path);
    }
  };
  visit(file.action, [...file.at]);
  return out;
}

/** The action files a file starts by name, with where each name is written. */
export function namedActions(file: ActionFile): NameAt[] {
  const out: NameAt[] = [];
  for (const { step, at } of actionSteps(file)) {
    if (step.type === 'action.execute-action')
      out.push({ name: step.options.action, at: [...at, 'options', 'action'] });
    const o = (step.options ?? {}) as Record<string, unknown>;
    for (const key of ['onSuccess', 'onError', 'onCancelled']) {
      for (const { value, path } of followUpList(o[key] as FollowUp | FollowUp[] | undefined, [
        ...at,
        'options',
        key,
      ]))
        if (typeof value === 'string') out.push({ name: value, at: path });
    }
  }
  return out;
}

function followUpList(
  raw: FollowUp | FollowUp[] | undefined,
  path: PropertyPath,
): Array<{ value: FollowUp; path: PropertyPath }> {
  if (raw === undefined) return [];
  return Array.isArray(raw) ? raw.map((value, i) => ({ value, path: [...path, i] })) : [{ value: raw, path }];
}
