import { actionSteps } from '../action-steps.js';
import { credentialKind } from '../credential-params.js';
import { entitiesOf } from '../schema/datasource.js';
import type { Solution, SourceFile } from '../solution.js';
import type { PropertyPath } from '../yaml-file.js';
import type { Reporter } from './reporter.js';

/**
 * The parameters a function cannot run without: required, with no default (`value`), and not a
 * credential (whose `value` is its key). A call that gives none of them fails every time, before
 * anything is sent (PARAMETER_REQUIRED), so it is said here.
 */
export function requiredParameters(fn: SourceFile<'function'>): string[] {
  const parameters = fn.definition?.parameters ?? {};
  return Object.entries(parameters)
    .filter(([name, p]) => p.required === true && p.value === undefined && !credentialKind(name, p))
    .map(([name]) => name);
}

/**
 * Datasource entities, `sync-entities` entries and `execute-entity` steps give a function exactly the
 * parameters they list: one missing from them is missing at run time. `execute-entities` (each
 * record's values go too), a form's `submit-form` (the form's values go) and local-only steps are
 * not checked; neither is a parameter map written as one expression.
 */
export function callParameters(file: SourceFile, r: Reporter, solution: Solution): void {
  const check = (fn: string | undefined, given: unknown, at: PropertyPath) => {
    const target = fn === undefined ? undefined : solution.functions.get(fn);
    if (!target || (given !== undefined && (typeof given !== 'object' || given === null))) return;
    const missing = requiredParameters(target).filter((name) => !Object.hasOwn(given ?? {}, name));
    if (missing.length === 0) return;
    const list = missing.map((n) => `'${n}'`).join(', ');
    r.report(
      'CALL_PARAMETER_MISSING',
      `function '${fn}' requires parameter${missing.length > 1 ? 's' : ''} ${list} (no default), which this call does not give, so it would fail before sending anything; add ${missing.length > 1 ? 'them' : 'it'} under the parameters it passes`,
      at,
    );
  };
  if (file.kind === 'datasource' && file.definition) {
    for (const [i, entry] of entitiesOf((file as SourceFile<'datasource'>).definition!).entries())
      if (typeof entry !== 'string')
        check(entry.function, entry.functionParameters, ['options', 'entities', i, 'function']);
  } else if (file.kind === 'action' && file.definition) {
    for (const { step, at } of actionSteps((file as SourceFile<'action'>).definition!)) {
      if (step.type === 'action.sync-entities') {
        for (const [i, entry] of step.options.entities.entries())
          if (typeof entry !== 'string')
            check(entry.function, entry.functionParameters ?? entry.parameters, [
              ...at,
              'options',
              'entities',
              i,
              'function',
            ]);
      } else if (step.type === 'action.execute-entity' && step.options.provider !== 'DATA_PROVIDER_LOCAL') {
        // A local provider changes the row only: the function is not called.
        const o = step.options;
        check(o.function, o.parameters ?? o.functionParameters, [...at, 'options', 'function']);
      }
    }
  }
}
