import type { Solution } from '../../../definition/solution.js';
import { didYouMean } from '../../../definition/suggest.js';
import { validateSolution } from '../../../definition/validate.js';
import { DefinitionError } from '../../../errors/definition-error.js';
import { FunctionNotFoundError, ParameterError } from '../../../runtime/errors.js';
import type { ExecutionEvent } from '../../../runtime/events.js';
import { maskError, maskJson } from '../../../runtime/mask.js';
import { counted } from '../../plural.js';
import { cliRuntime } from '../../runtime.js';
import { openStore } from '../../store-path.js';

/** What a Run from the editor answers: as the result of `restfn.run`, and as the document shown. */
export interface RunAnswer {
  readonly function: string;
  /** The HTTP status of the last response; undefined when no request was made (a `when` skipped it). */
  readonly status: number | undefined;
  /** `GET https://...`: the last request's line, credentials masked by the runtime. */
  readonly request: string | undefined;
  /** The function's output (null when skipped). */
  readonly output: unknown;
  readonly skipped?: string;
}

/**
 * `restfn.run NAME`: the function called as `restfn run NAME` calls it, with no parameters given,
 * so each takes its default. Over the editor's texts (the solution as the language service holds
 * it), refused when the function's file or solution.yaml has errors, as the CLI refuses it. A
 * required parameter without a default is said (PARAMETER_REQUIRED) before anything is sent.
 */
export async function runFunction(solution: Solution, name: string): Promise<RunAnswer> {
  const file = solution.functions.get(name);
  if (!file) throw new FunctionNotFoundError(name, didYouMean(name, solution.functions.keys()));
  const only = new Set([file.yaml.file, ...(solution.settings ? [solution.settings.yaml.file] : [])]);
  const { diagnostics, errors } = await validateSolution(solution, { only });
  if (errors > 0)
    throw new DefinitionError(
      `function '${name}' has ${counted(errors, 'error')}; fix them first`,
      diagnostics,
    );
  const d = file.definition;
  // As `restfn run`: only a function that reads or writes local tables opens the database.
  const store =
    d?.queries || d?.guard || d?.conversions || d?.error?.some((h) => h.operations?.length)
      ? openStore(solution.root, undefined)
      : undefined;
  const runtime = await cliRuntime(solution, store, {}, () => {});
  let request: string | undefined;
  let status: number | undefined;
  runtime.on((event: ExecutionEvent) => {
    // The runtime masks credentials in what it tells (the same events `--verbose` prints).
    if (event.type === 'request') request = `${event.method} ${event.url}`;
    if (event.type === 'response') status = event.status;
  });
  // Every credential text the call used: hidden wherever the answer could echo one (as the platform
  // hides them in what it answers), beyond the runtime's masking of the request and response.
  const collect = new Set<string>();
  try {
    const result = await runtime.execute(name, {}, {}, { collect }).catch((error: unknown) => {
      throw maskError(withDefaultsNote(error, name), [...collect]);
    });
    const secrets = [...collect];
    return result.status === 'ok'
      ? {
          function: name,
          status,
          request,
          output: secrets.length > 0 ? maskJson(result.output, secrets) : result.output,
        }
      : { function: name, status, request, output: null, skipped: result.reason };
  } finally {
    await runtime.close();
    store?.close();
  }
}

/** A required parameter without a default: how to run the function anyway. */
function withDefaultsNote(error: unknown, name: string): unknown {
  if (!(error instanceof ParameterError) || error.code !== 'PARAMETER_REQUIRED' || error.missing.length === 0)
    return error;
  const which = error.missing.map((n) => `'${n}'`).join(', ');
  return new ParameterError(
    'PARAMETER_REQUIRED',
    error.parameter,
    `${error.message}: Run from the editor gives each parameter its default, and ${which} ${error.missing.length > 1 ? 'have' : 'has'} none; give ${error.missing.length > 1 ? 'them' : 'it'} a default (value:), or run it from a terminal: restfn run ${name} ${error.missing.map((n) => `-p ${n}=VALUE`).join(' ')}`,
    error.missing,
  );
}
