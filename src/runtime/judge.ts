import type { ErrorHandler } from '../definition/schema/index.js';
import { isTruthy } from '../expression/evaluate.js';
import type { ExecutionContext } from './context.js';
import type { Field } from './field.js';

// Judging a result (used by the call, after every attempt); reporting a final failure is report.ts.

/** Whether a result is an error, and which handler said so (spec 7.1). */
export interface Verdict {
  readonly isError: boolean;
  readonly handler?: ErrorHandler;
  readonly index?: number;
}

/**
 * The `error` handlers, top to bottom, on every result: the first whose `when` holds decides that
 * it is an error. A handler without `when` is the provider's default check. With no match, the
 * default check alone decides (a failure to get a response, or a status of 400 and above).
 */
export async function judge(
  handlers: readonly ErrorHandler[],
  defaultFailed: boolean,
  ctx: ExecutionContext,
  field: Field,
): Promise<Verdict> {
  for (const [index, handler] of handlers.entries()) {
    const matches =
      handler.when === undefined
        ? defaultFailed
        : isTruthy(await field(['error', index, 'when'], handler.when, ctx));
    if (matches) return { isError: true, handler, index };
  }
  return { isError: defaultFailed };
}

/** A matched handler's `retry`, evaluated: delay in ms (default 1000), maxRetries (default 3). */
export async function handlerRetry(verdict: Verdict, ctx: ExecutionContext, field: Field) {
  const retry = verdict.handler?.retry;
  if (!retry) return undefined;
  const at = ['error', verdict.index!, 'retry'];
  const delayMs = retry.delay === undefined ? 1000 : Number(await field([...at, 'delay'], retry.delay, ctx));
  const maxRetries =
    retry.maxRetries === undefined ? 3 : Number(await field([...at, 'maxRetries'], retry.maxRetries, ctx));
  return {
    delayMs: Number.isFinite(delayMs) ? delayMs : 1000,
    maxRetries: Number.isFinite(maxRetries) ? maxRetries : 0,
  };
}
