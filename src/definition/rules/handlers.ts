import { checkSyntax } from '../../expression/compile.js';
import { evaluateExpression, isTruthy } from '../../expression/evaluate.js';
import { expressionSource } from '../../expression/source.js';
import type { FunctionRule } from './reporter.js';

/**
 * Successful responses a handler's `when` is tried against. A `when` that holds for every one of them
 * does not look at anything that tells success from failure, so it would turn every 200 into an
 * error (spec 7.5 rule 4). One that depends on the body (`=@ctx.response.body.error != null`) is fine.
 */
const SUCCESS_BODIES: unknown[] = [{}, [], null, 'OK', { value: [{ id: '1' }] }];

function successContext(body: unknown) {
  const response = {
    ok: true,
    status: 200,
    statusText: 'OK',
    headers: { 'content-type': 'application/json' },
    body,
  };
  return {
    parameters: {},
    queries: {},
    request: { method: 'GET', url: 'http://127.0.0.1/', headers: {}, body: null },
    response,
    output: body,
    entity: 'entity',
    user: {},
    solution: { settings: { custom: {} } },
  };
}

export const handlerMatchesSuccess: FunctionRule = async (file, r) => {
  for (const [i, handler] of (file.definition.error ?? []).entries()) {
    if (handler.when === undefined) continue; // the provider's default check
    if (await holdsForEverySuccess(handler.when)) {
      r.report(
        'HANDLER_MATCHES_SUCCESS',
        `error handler ${i + 1}: 'when' is true for a successful 200 response, so data would never load; make it exclude 200 (for example '=@ctx.response.status = 403')`,
        ['error', i, 'when'],
      );
    }
  }
};

/** Verdicts by `when` text: solutions repeat the same conditions in file after file. */
const verdicts = new Map<string, Promise<boolean>>();

function holdsForEverySuccess(when: boolean | string): Promise<boolean> {
  if (typeof when === 'boolean') return Promise.resolve(when);
  let verdict = verdicts.get(when);
  if (!verdict) {
    verdict = tryOnSuccesses(when);
    verdicts.set(when, verdict);
  }
  return verdict;
}

async function tryOnSuccesses(when: string): Promise<boolean> {
  const source = expressionSource(when);
  if (!source) return isTruthy(when); // a plain non-empty string is truthy
  if (checkSyntax(source.body)) return false; // reported by the expression rule
  for (const body of SUCCESS_BODIES) {
    const context = successContext(body);
    try {
      if (!isTruthy(await evaluateExpression(source.body, context, context))) return false;
    } catch {
      return false; // fails at run time on a success: not a match
    }
  }
  return true;
}
