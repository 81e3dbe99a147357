import { actionSteps, namedActions } from '../action-steps.js';
import { entitiesOf } from '../schema/datasource.js';
import type { Solution, SourceFile } from '../solution.js';
import { closest, meantText } from '../suggest.js';
import type { PropertyPath } from '../yaml-file.js';
import type { Reporter } from './reporter.js';

/** Datasource entities, actions and guards must name functions that exist in the solution. */
export function functionReferences(file: SourceFile, r: Reporter, solution: Solution): void {
  const check = (name: string | undefined, path: PropertyPath) => {
    if (name === undefined || solution.functions.has(name)) return;
    const near = closest(name, solution.functions.keys());
    r.report(
      'UNKNOWN_FUNCTION',
      `function '${name}' does not exist in this solution${meantText(near)}; create it with 'restfn new ${name}'`,
      path,
      { meant: near ? { word: name, text: near } : undefined },
    );
  };
  if (file.kind === 'datasource' && file.definition) {
    const entities = entitiesOf((file as SourceFile<'datasource'>).definition!);
    for (const [i, entry] of entities.entries()) {
      if (typeof entry !== 'string') check(entry.function, ['options', 'entities', i, 'function']);
    }
  } else if (file.kind === 'action' && file.definition) {
    for (const { step, at } of actionSteps((file as SourceFile<'action'>).definition!)) {
      if (step.type === 'action.sync-entities') {
        for (const [i, entry] of step.options.entities.entries())
          if (typeof entry !== 'string') check(entry.function, [...at, 'options', 'entities', i, 'function']);
        continue;
      }
      if (
        step.type !== 'action.execute-entity' &&
        step.type !== 'action.execute-entities' &&
        step.type !== 'action.submit-form'
      )
        continue;
      check(step.options.function, [...at, 'options', 'function']);
      if (step.options.method === 'functionCall' && step.options.function === undefined) {
        r.report(
          'ACTION_FUNCTION_MISSING',
          "method functionCall calls a function and changes nothing locally: name it with 'function: <name>'",
          [...at, 'options', 'method'],
        );
      }
    }
  } else if (file.kind === 'function' && file.definition) {
    check((file as SourceFile<'function'>).definition!.guard?.function, ['guard', 'function']);
  }
}

/** A guard chain that leads back to its start would run forever. */
export function guardCycle(file: SourceFile, r: Reporter, solution: Solution): void {
  if (file.kind !== 'function') return;
  const guardOf = (name: string) =>
    (solution.functions.get(name)?.definition as { guard?: { function: string } } | undefined)?.guard
      ?.function;
  const chain = [file.name];
  for (let next = guardOf(file.name); next !== undefined; next = guardOf(next)) {
    if (next === file.name) {
      r.report(
        'GUARD_CYCLE',
        `guards form a cycle: ${[...chain, next].join(' -> ')}; break it by removing one guard`,
        ['guard', 'function'],
      );
      return;
    }
    if (chain.includes(next)) return; // a cycle further down the chain is reported at its own functions
    chain.push(next);
  }
}

/**
 * Actions started by name (`onSuccess`/`onError` names, `execute-action`) must name an action of the
 * solution, and actions started that way must not lead back to where they began (the runtime stops
 * such a chain only after the first actions ran). Followed through actions written in place too.
 */
export function onSuccessReferences(file: SourceFile, r: Reporter, solution: Solution): void {
  if (file.kind !== 'action' || !file.definition) return;
  const actions = new Map(
    solution.files.filter((f) => f.kind === 'action').map((f) => [f.name, f as SourceFile<'action'>]),
  );
  const named = (name: string) => {
    const definition = actions.get(name)?.definition;
    return definition ? namedActions(definition) : [];
  };
  const own = namedActions((file as SourceFile<'action'>).definition!);
  for (const { name, at } of own) {
    if (actions.has(name)) continue;
    const near = closest(name, actions.keys());
    r.report(
      'UNKNOWN_ACTION',
      `action '${name}' does not exist in this solution${meantText(near)}; actions are the files in the actions/ folder`,
      at,
      { meant: near ? { word: name, text: near } : undefined },
    );
  }
  // Breadth first over the named chain; a cycle further on is reported at its own files.
  const chain = new Map<string, string[]>(own.map(({ name }) => [name, [file.name, name]]));
  for (const [name, route] of chain) {
    if (name === file.name) {
      r.report(
        'ACTION_CYCLE',
        `actions start each other in a cycle (onSuccess, onError, execute-action): ${route.join(' -> ')}; end the chain with a step for the screen (action.go-back) or remove one reference`,
        own[0]!.at,
      );
      return;
    }
    for (const next of named(name)) if (!chain.has(next.name)) chain.set(next.name, [...route, next.name]);
  }
}
