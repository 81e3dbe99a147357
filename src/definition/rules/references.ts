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
    check((file as SourceFile<'action'>).definition!.options.function, ['options', 'function']);
  } else if (file.kind === 'function' && file.definition) {
    check((file as SourceFile<'function'>).definition!.guard?.function, ['guard', 'function']);
  }
}
