import type { SourceFile } from '../../definition/solution.js';
import { didYouMean } from '../../definition/suggest.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { UsageError } from '../../errors/restfn-error.js';
import { ParameterError } from '../errors.js';
import { coerce } from '../parameters.js';
import type { QueueEngine } from '../push.js';
import type { Evaluator } from './step-context.js';

/** The action file `name`, valid. */
export function actionFile(engine: QueueEngine, name: string): SourceFile<'action'> {
  const actions = engine.solution.files.filter((f) => f.kind === 'action');
  const file = actions.find((f) => f.name === name);
  if (!file) {
    throw new UsageError(
      `action '${name}' does not exist${didYouMean(
        name,
        actions.map((f) => f.name),
      )}; actions are the files in the solution's actions/ folder`,
      'ACTION_NOT_FOUND',
    );
  }
  if (!file.definition) {
    throw new DefinitionError(
      `action '${name}' is invalid (${file.yaml.file}); run 'restfn validate' for details`,
    );
  }
  return file as SourceFile<'action'>;
}

/**
 * Refuses a value for a parameter a global action does not declare (PARAMETER_UNKNOWN, with the
 * closest declared name). An action that declares none takes any.
 */
export function checkParameterNames(file: SourceFile<'action'>, given: Iterable<string>): void {
  const names = Object.keys(file.definition!.parameters);
  if (names.length === 0) return;
  for (const key of given) {
    if (names.includes(key)) continue;
    throw new ParameterError(
      'PARAMETER_UNKNOWN',
      key,
      `action '${file.name}' has no parameter '${key}'${didYouMean(key, names)}; it declares ${names.map((n) => `'${n}'`).join(', ')}`,
    );
  }
}

/**
 * A global action's parameters, as `@ctx.action.parameters` holds them: each given value (else the
 * declared `value`, an expression evaluated in the action's own context) typed as declared. A
 * required one with no value, and a value for one it does not declare, are refused before anything
 * runs. An action that declares none takes what it is given.
 */
export async function actionParameters(
  file: SourceFile<'action'>,
  given: Readonly<Record<string, unknown>>,
  ev: Evaluator,
): Promise<Record<string, unknown>> {
  const declared = file.definition!.parameters;
  if (Object.keys(declared).length === 0) return { ...given };
  checkParameterNames(file, Object.keys(given));
  const out: Record<string, unknown> = {};
  for (const [key, p] of Object.entries(declared)) {
    let value = given[key];
    if (value === undefined && p.value !== undefined)
      value = await ev.field(['parameters', key, 'value'], p.value);
    if (value === undefined) {
      if (p.required) {
        throw new ParameterError(
          'PARAMETER_REQUIRED',
          key,
          `action '${file.name}' needs parameter '${key}': give it in execute-action's parameters, or from the CLI with -p ${key}=...`,
        );
      }
      continue;
    }
    try {
      out[key] = coerce(key, p.type, value);
    } catch (error) {
      if (error instanceof ParameterError) error.message = `action '${file.name}': ${error.message}`;
      throw error;
    }
  }
  return out;
}
