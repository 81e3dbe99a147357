import { actionSteps } from '../action-steps.js';
import { credentialKind } from '../credential-params.js';
import { entitiesOf } from '../schema/datasource.js';
import type { Solution, SourceFile } from '../solution.js';
import { closest, meantText } from '../suggest.js';
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

/** A call of a function from a datasource or an action: the parameters it gives, and where. */
export interface Call {
  readonly fn: string | undefined;
  /** The parameter map given (undefined when none is written). */
  readonly given: unknown;
  /** Where the call names its function (`function:`'s value). */
  readonly at: PropertyPath;
  /** Where its parameters are (or go, when none are written): the call's map and the key. */
  readonly parameters: { readonly at: PropertyPath; readonly key: string };
  /**
   * Whether every name given is meant for the function: not for an action's older
   * `functionParameters`, which carries the row's values too.
   */
  readonly onlyParameters: boolean;
}

/**
 * Datasource entities, `sync-entities` entries and `execute-entity` steps give a function exactly the
 * parameters they list: one missing from them is missing at run time. `execute-entities` (each
 * record's values go too), a form's `submit-form` (the form's values go) and local-only steps are
 * not listed.
 */
export function callsOf(file: SourceFile): Call[] {
  const calls: Call[] = [];
  const entry = (
    e: { function?: string | undefined; functionParameters?: unknown; parameters?: unknown },
    at: PropertyPath,
  ) => {
    const key =
      e.functionParameters === undefined && e.parameters !== undefined ? 'parameters' : 'functionParameters';
    calls.push({
      fn: e.function,
      given: e.functionParameters ?? e.parameters,
      at: [...at, 'function'],
      parameters: { at, key },
      onlyParameters: true,
    });
  };
  if (file.kind === 'datasource' && file.definition) {
    for (const [i, e] of entitiesOf((file as SourceFile<'datasource'>).definition!).entries())
      if (typeof e !== 'string') entry(e, ['options', 'entities', i]);
  } else if (file.kind === 'action' && file.definition) {
    for (const { step, at } of actionSteps((file as SourceFile<'action'>).definition!)) {
      if (step.type === 'action.sync-entities') {
        for (const [i, e] of step.options.entities.entries())
          if (typeof e !== 'string') entry(e, [...at, 'options', 'entities', i]);
      } else if (step.type === 'action.execute-entity' && step.options.provider !== 'DATA_PROVIDER_LOCAL') {
        // A local provider changes the row only: the function is not called.
        const o = step.options;
        const key =
          o.parameters === undefined && o.functionParameters !== undefined
            ? 'functionParameters'
            : 'parameters';
        calls.push({
          fn: o.function,
          given: o.parameters ?? o.functionParameters,
          at: [...at, 'options', 'function'],
          parameters: { at: [...at, 'options'], key },
          onlyParameters: key === 'parameters',
        });
      }
    }
  }
  return calls;
}

/** The names a function takes: its parameters and its continuation's. */
function declaredParameters(fn: SourceFile<'function'>): string[] {
  const d = fn.definition;
  return [
    ...new Set([...Object.keys(d?.parameters ?? {}), ...Object.keys(d?.continuation?.parameters ?? {})]),
  ];
}

/** The names a call gives that its function does not take (none when its function is unknown or invalid). */
function unknownParameters(call: Call, solution: Solution): string[] {
  const target = call.fn === undefined ? undefined : solution.functions.get(call.fn);
  const given = call.given;
  if (!call.onlyParameters || !target?.definition || typeof given !== 'object' || given === null) return [];
  const declared = declaredParameters(target);
  return Object.keys(given).filter((name) => !declared.includes(name));
}

/** The required parameters a call does not give (none when its parameters are one expression). */
export function missingParameters(call: Call, solution: Solution): string[] {
  const target = call.fn === undefined ? undefined : solution.functions.get(call.fn);
  const given = call.given;
  if (!target || (given !== undefined && (typeof given !== 'object' || given === null))) return [];
  return requiredParameters(target).filter((name) => !Object.hasOwn(given ?? {}, name));
}

/**
 * A call that leaves out a parameter its function requires would fail every time; a value for a
 * parameter the function does not declare is dropped without a word (the call goes out with the
 * default instead), as `restfn run -p` refuses it (PARAMETER_UNKNOWN): said, with the closest name.
 */
export function callParameters(file: SourceFile, r: Reporter, solution: Solution): void {
  for (const call of callsOf(file)) {
    for (const name of unknownParameters(call, solution)) {
      const declared = declaredParameters(solution.functions.get(call.fn!)!);
      const near = closest(name, declared);
      r.report(
        'CALL_PARAMETER_UNKNOWN',
        `function '${call.fn}' has no parameter '${name}'${meantText(near)}, so this value is dropped and never sent; ${declared.length > 0 ? `its parameters are ${declared.map((n) => `'${n}'`).join(', ')}` : 'it has no parameters'}`,
        [...call.parameters.at, call.parameters.key, name],
        { key: true, meant: near ? { word: name, text: near, key: true } : undefined },
      );
    }
    const missing = missingParameters(call, solution);
    if (missing.length === 0) continue;
    const list = missing.map((n) => `'${n}'`).join(', ');
    r.report(
      'CALL_PARAMETER_MISSING',
      `function '${call.fn}' requires parameter${missing.length > 1 ? 's' : ''} ${list} (no default), which this call does not give, so it would fail before sending anything; add ${missing.length > 1 ? 'them' : 'it'} under the parameters it passes`,
      call.at,
    );
  }
}
