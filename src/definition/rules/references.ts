import { entitiesOf } from '../schema/datasource.js';
import type { Solution, SourceFile } from '../solution.js';
import { didYouMean } from '../suggest.js';
import type { PropertyPath } from '../yaml-file.js';
import type { Reporter } from './reporter.js';

/** Datasource entities, actions and guards must name functions that exist in the solution. */
export function functionReferences(file: SourceFile, r: Reporter, solution: Solution): void {
  const check = (name: string | undefined, path: PropertyPath) => {
    if (name === undefined || solution.functions.has(name)) return;
    r.report(
      'UNKNOWN_FUNCTION',
      `function '${name}' does not exist in this solution${didYouMean(name, solution.functions.keys())}; create it with 'restfn new ${name}'`,
      path,
    );
  };
  if (file.kind === 'datasource' && file.definition) {
    const entities = entitiesOf((file as SourceFile<'datasource'>).definition!);
    for (const [i, entry] of entities.entries()) {
      if (typeof entry !== 'string') check(entry.function, ['options', 'entities', i, 'function']);
    }
  } else if (file.kind === 'action' && file.definition) {
    const action = (file as SourceFile<'action'>).definition!;
    if (action.type === 'action.execute-entity') {
      check(action.options.function, ['options', 'function']);
      if (action.options.method === 'functionCall' && action.options.function === undefined) {
        r.report(
          'ACTION_FUNCTION_MISSING',
          "method functionCall calls a function and changes nothing locally: name it with 'function: <name>'",
          ['options', 'method'],
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
 * `onSuccess` by name must name an action of the solution, and actions started that way must not
 * lead back to where they began (the runtime stops such a chain only after the first actions ran).
 * Followed through inline `onSuccess` actions too.
 */
export function onSuccessReferences(file: SourceFile, r: Reporter, solution: Solution): void {
  if (file.kind !== 'action' || !file.definition) return;
  const actions = new Map(
    solution.files.filter((f) => f.kind === 'action').map((f) => [f.name, f as SourceFile<'action'>]),
  );
  /** The action names an action definition starts by `onSuccess`, with where each is written. */
  const named = (definition: unknown, path: PropertyPath): Array<[string, PropertyPath]> => {
    const onSuccess = (definition as { options?: { onSuccess?: unknown } } | undefined)?.options?.onSuccess;
    const at = [...path, 'options', 'onSuccess'];
    if (typeof onSuccess === 'string') return [[onSuccess, at]];
    return onSuccess !== null && typeof onSuccess === 'object' ? named(onSuccess, at) : [];
  };
  const own = named(file.definition, []);
  for (const [name, path] of own) {
    if (actions.has(name)) continue;
    r.report(
      'UNKNOWN_ACTION',
      `onSuccess names action '${name}', which does not exist in this solution${didYouMean(name, actions.keys())}; actions are the files in the actions/ folder`,
      path,
    );
  }
  // Breadth first over the named chain; a cycle further on is reported at its own files.
  const chain = new Map<string, string[]>(own.map(([name]) => [name, [file.name, name]]));
  for (const [name, route] of chain) {
    if (name === file.name) {
      r.report(
        'ACTION_CYCLE',
        `actions start each other in a cycle through onSuccess: ${route.join(' -> ')}; end the chain with a step for the screen (action.go-back) or remove one onSuccess`,
        own[0]![1],
      );
      return;
    }
    for (const [next] of named(actions.get(name)?.definition, []))
      if (!chain.has(next)) chain.set(next, [...route, next]);
  }
}
