import { createHash } from 'node:crypto';
import { isTruthy } from '../expression/evaluate.js';
import { RemoteError } from '../http/errors.js';
import type { CallContext } from './context.js';
import type { Engine, Execution, PageRequest } from './engine.js';
import { fieldsOf } from './field.js';
import { functionFile, runFunction } from './pipeline.js';
import { planOf } from './plan.js';

/** Why paging stopped. `page-cap` and `repeated-page` are reported, never silent. */
export type StopReason = 'done' | 'skipped' | 'page-cap' | 'repeated-page';

/**
 * Runs a function and follows its `continuation` page by page, handing each page to `onPage` before
 * the next is fetched (so pages stream). Stops when `continuation.when` is falsy, when the function's
 * `when` turns false, at the page cap, or when a response body repeats the previous one exactly (that
 * page is not handed on).
 *
 * A GET function without a guard or conversions asks for its next page while `onPage` writes the
 * current one (one page ahead at most, so memory stays flat), which hides the server's time behind
 * the writes. Its continuation is then decided before `onPage` rather than after: nothing `onPage`
 * does can change what it reads, as it converts no records in place. Should `onPage` fail, the
 * request already sent is aborted and its outcome ignored: the failure is the one reported, as it
 * would be without the lookahead.
 */
export async function paginate(
  engine: Engine,
  name: string,
  given: Readonly<Record<string, unknown>>,
  call: CallContext,
  onPage: (execution: Execution, page: number) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<{ pages: number; stopped: StopReason }> {
  let previousSignature: string | undefined;
  let pending: Pending = { execution: runFunction(engine, name, given, call, { signal }) };
  for (let page = 1; ; page++) {
    const execution = await pending.execution.catch((error: unknown) => {
      throw page > 1 ? withDroppedCredentials(engine, name, error, page) : error;
    });
    if (execution.result.status === 'skipped') {
      if (page === 1 || execution.guardFailed) await onPage(execution, page);
      return { pages: page - 1, stopped: page === 1 ? 'skipped' : 'done' };
    }
    // An exact repeat is the same response body, byte for byte.
    const signature = createHash('sha1')
      .update(execution.bytes ?? '')
      .digest('hex');
    if (signature === previousSignature) return { pages: page - 1, stopped: 'repeated-page' };
    previousSignature = signature;

    if (!lookahead(execution)) {
      await onPage(execution, page);
      const next = await nextRequest(engine, execution, page);
      if (!('request' in next)) return next;
      pending = { execution: runFunction(engine, name, given, call, { signal, page: next.request }) };
      continue;
    }

    // Looking ahead: the next page is requested first; a failure deciding it waits for `onPage`.
    let next: Awaited<ReturnType<typeof nextRequest>> | undefined;
    let undecided: { error: unknown } | undefined;
    try {
      next = await nextRequest(engine, execution, page);
    } catch (error) {
      undecided = { error };
    }
    const ahead =
      next && 'request' in next ? fetchAhead(engine, name, given, call, signal, next.request) : undefined;
    try {
      // One turn of the event loop lets the next call get as far as its request before the writes.
      if (ahead) await new Promise((resolve) => setImmediate(resolve));
      await onPage(execution, page);
    } catch (error) {
      if (ahead) {
        ahead.controller.abort();
        await ahead.execution.catch(() => undefined);
      }
      throw error;
    }
    if (undecided) throw undecided.error;
    if (!ahead) return next as { pages: number; stopped: StopReason };
    pending = ahead;
  }
}

interface Pending {
  readonly execution: Promise<Execution>;
}

/** Whether the next page may be requested while this one is written (see `paginate`). */
function lookahead(execution: Execution): boolean {
  const d = execution.file.definition;
  return d.continuation !== undefined && d.method === 'GET' && !d.guard && d.conversions === undefined;
}

/** The next page's call, abortable on its own, its failure kept for whoever awaits it. */
function fetchAhead(
  engine: Engine,
  name: string,
  given: Readonly<Record<string, unknown>>,
  call: CallContext,
  signal: AbortSignal | undefined,
  request: PageRequest,
): Pending & { readonly controller: AbortController } {
  const controller = new AbortController();
  const combined = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
  const execution = runFunction(engine, name, given, call, { signal: combined, page: request });
  // Not awaited until the current page is written: a failure meanwhile is no unhandled rejection.
  execution.catch(() => undefined);
  return { execution, controller };
}

/** After `page`: the next page's request, or why paging stops. */
async function nextRequest(
  engine: Engine,
  execution: Execution,
  page: number,
): Promise<{ pages: number; stopped: StopReason } | { request: PageRequest }> {
  const { file, ctx } = execution;
  const output = execution.result.status === 'ok' ? execution.result.output : undefined;
  const continuation = file.definition.continuation;
  if (!continuation) return { pages: page, stopped: 'done' };
  const evaluate = fieldsOf(file, ctx, engine.expressions);
  const field = (path: string[], raw: unknown) => evaluate(path, raw, output);
  if (!isTruthy(await field(['continuation', 'when'], continuation.when)))
    return { pages: page, stopped: 'done' };
  if (page >= engine.options.maxPages) return { pages: page, stopped: 'page-cap' };
  const url =
    continuation.url === undefined ? undefined : await field(['continuation', 'url'], continuation.url);
  return {
    request: {
      url: url === undefined || url === null ? undefined : String(url),
      parameters: continuation.parameters ?? {},
      previous: ctx,
    },
  };
}

/**
 * A 401 on a later page, when the continuation does not repeat a credential parameter: the next
 * pages went without it (continuation.parameters replace the function's). Said in the error.
 */
function withDroppedCredentials(engine: Engine, name: string, error: unknown, page: number): unknown {
  if (!(error instanceof RemoteError) || error.status !== 401) return error;
  const definition = functionFile(engine.solution, name).definition;
  const kept = new Set(Object.keys(definition.continuation?.parameters ?? {}));
  const dropped = planOf(definition).parameters.list.filter((p) => p.credential && !kept.has(p.name));
  if (dropped.length === 0) return error;
  const names = dropped.map((p) => `'${p.name}'`).join(', ');
  error.message += `; page ${page} was sent without ${names}: continuation.parameters replace the function's, so repeat ${dropped.length > 1 ? 'them' : 'it'} there`;
  return error;
}
