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
    const { entities } = (file as SourceFile<'datasource'>).definition!.options;
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
