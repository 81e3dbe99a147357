import { isTruthy } from '../expression/evaluate.js';
import { RemoteError } from '../http/errors.js';
import { type RequestBudget, requestBudget } from '../http/request-budget.js';
import { sha256Hex } from '../portable/digest.js';
import type { SecretCollector } from './call.js';
import type { CallContext } from './context.js';
import type { Engine, Execution, PageRequest } from './engine.js';
import { PagingError } from './errors.js';
import { fieldsOf } from './field.js';
import { functionFile, runFunction } from './pipeline.js';
import { planOf } from './plan.js';

/**
 * Why paging stopped. `done`, `skipped` and `repeated-page` (a new request answered with the last
 * page's body: the service's way of saying "no more") are clean ends. `page-cap`, `stalled` and
 * `failed` end paging before the service's data did: they are errors (`PagingError`, or the failed
 * page's own), returned as a stop only when the caller keeps partial data (`allowPartial`).
 */
export type StopReason = 'done' | 'skipped' | 'repeated-page' | 'page-cap' | 'stalled' | 'failed';

export interface Paged {
  readonly pages: number;
  readonly stopped: StopReason;
  /** With `allowPartial`: why paging ended early (the PagingError, or the failed page's error). */
  readonly error?: unknown;
}

export interface PaginateOptions {
  readonly signal?: AbortSignal | undefined;
  /** Return what was paged so far, with the reason, instead of failing on an early end. */
  readonly allowPartial?: boolean | undefined;
  /** Told every credential text the pages' calls use. */
  readonly collect?: SecretCollector | undefined;
  /**
   * The requests left to the execution these pages belong to (a preview runs several functions in
   * one); a fresh budget when not given. Shared by every page: see `RequestBudget`.
   */
  readonly budget?: RequestBudget | undefined;
}

/**
 * Runs a function and follows its `continuation` page by page, handing each page to `onPage` before
 * the next is fetched (so pages stream). Ends cleanly when `continuation.when` is falsy, when the
 * function's `when` turns false, or when a new request is answered with the previous page's body
 * exactly (that page is not handed on). Ends early, as an error, at the page cap, when the next
 * request advanced nothing (an empty continuation url, or the same request again), or when a page
 * fails: whoever writes the pages then keeps nothing, unless `allowPartial` asks for what came.
 *
 * A GET function without a guard or conversions asks for its next page while `onPage` writes the
 * current one (one page ahead at most, so memory stays flat), which hides the server's time behind
 * the writes. Its continuation is then decided before `onPage` rather than after: nothing `onPage`
 * does can change what it reads, as it converts no records in place. Should `onPage` fail, the
 * request already sent is aborted and its outcome ignored: the failure is the one reported, as it
 * would be without the lookahead.
 *
 * All pages are one execution: one request budget (`RequestBudget`), each later page adding its
 * own first request to it, so retries and redirects cannot multiply by the page cap.
 */
export async function paginate(
  engine: Engine,
  name: string,
  given: Readonly<Record<string, unknown>>,
  call: CallContext,
  onPage: (execution: Execution, page: number) => void | Promise<void>,
  options: PaginateOptions = {},
): Promise<Paged> {
  const { signal, collect } = options;
  const budget = options.budget ?? requestBudget(engine.options.maxRequestsPerExecution);
  const early = (page: number, error: unknown): Paged => {
    if (page > 1 && typeof error === 'object' && error !== null) laterPageFailures.set(error, page);
    if (!options.allowPartial || page === 1) throw error;
    const stopped = !(error instanceof PagingError)
      ? 'failed'
      : error.code === 'PAGE_LIMIT'
        ? 'page-cap'
        : 'stalled';
    return { pages: page - 1, stopped, error };
  };
  let previous: { body: string; request: string } | undefined;
  let pending: Pending = { execution: runFunction(engine, name, given, call, { signal, collect, budget }) };
  for (let page = 1; ; page++) {
    let execution: Execution;
    try {
      execution = await pending.execution;
    } catch (error) {
      // Ctrl-C and the sync deadline abort the signal: never a failed page to keep pages over.
      if (page === 1 || signal?.aborted) throw error;
      return early(page, withDroppedCredentials(engine, name, error, page));
    }
    if (execution.result.status === 'skipped') {
      if (page === 1 || execution.guardFailed) await onPage(execution, page);
      return { pages: page - 1, stopped: page === 1 ? 'skipped' : 'done' };
    }
    const current = {
      body: sha256Hex(execution.bytes ?? ''),
      request: requestSignature(execution, pending.request),
    };
    if (previous?.request === current.request)
      return early(page, stalled(name, page, `it sent the same request as page ${page - 1}`));
    // A new request answered with the same body, byte for byte: the service has no more.
    if (previous?.body === current.body) return { pages: page - 1, stopped: 'repeated-page' };
    previous = current;

    if (!lookahead(execution)) {
      await onPage(execution, page);
      const next = await nextRequest(engine, name, execution, page).catch((error) => early(page + 1, error));
      if (!('request' in next)) return next;
      budget?.page();
      pending = {
        execution: runFunction(engine, name, given, call, { signal, page: next.request, collect, budget }),
        request: next.request,
      };
      continue;
    }

    // Looking ahead: the next page is requested first; a failure deciding it waits for `onPage`.
    let next: Awaited<ReturnType<typeof nextRequest>> | undefined;
    let undecided: { error: unknown } | undefined;
    try {
      next = await nextRequest(engine, name, execution, page);
    } catch (error) {
      undecided = { error };
    }
    const ahead =
      next && 'request' in next
        ? fetchAhead(engine, name, given, call, signal, next.request, collect, budget)
        : undefined;
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
    if (undecided) return early(page + 1, undecided.error);
    if (!ahead) return next as Paged;
    pending = ahead;
  }
}

/** Errors that ended paging after page 1 had been handed on, with the page they ended at. */
const laterPageFailures = new WeakMap<object, number>();

/**
 * The page at which `error` ended paging, when pages before it had been handed on (and, without
 * `allowPartial`, thrown away): what a caller may offer to keep next time.
 */
export function endedPaging(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null ? laterPageFailures.get(error) : undefined;
}

function stalled(name: string, page: number, why: string): PagingError {
  return new PagingError(
    'PAGING_STALLED',
    `function '${name}': continuation.when still held after page ${page - 1}, but page ${page} advanced nothing: ${why}. The continuation's url or parameters must move on (a next link, a cursor, a page counter)`,
    page - 1,
  );
}

/**
 * What identifies a page's request: as sent (method, url with its query, headers, body; credentials
 * masked alike on every page), or, when the call step ran on the platform, the continuation url and
 * the parameter values. Headers count: a cursor may travel in one (`X-Cursor`).
 */
function requestSignature(execution: Execution, request: PageRequest | undefined): string {
  const sent = execution.ctx.request;
  if (!sent) return JSON.stringify([request?.url ?? null, execution.ctx.parameters]);
  const headers = Object.entries(sent.headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([sent.method, sent.url, headers, sent.body ?? null]);
}

interface Pending {
  readonly execution: Promise<Execution>;
  /** The continuation request it answers (none for page 1). */
  readonly request?: PageRequest;
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
  collect: SecretCollector | undefined,
  budget: RequestBudget | undefined,
): Pending & { readonly controller: AbortController } {
  const controller = new AbortController();
  const combined = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
  budget?.page();
  const execution = runFunction(engine, name, given, call, {
    signal: combined,
    page: request,
    collect,
    budget,
  });
  // Not awaited until the current page is written: a failure meanwhile is no unhandled rejection.
  execution.catch(() => undefined);
  return { execution, controller, request };
}

/**
 * Whether the answer says more pages follow: the function has a `continuation` whose `when` holds
 * for this page (nothing is requested to find out). What paging follows, and what `restfn run`,
 * which gives page 1 only, tells its user.
 */
export async function continues(engine: Engine, execution: Execution): Promise<boolean> {
  const { file, ctx } = execution;
  const continuation = file.definition.continuation;
  if (!continuation || execution.result.status !== 'ok') return false;
  const output = execution.result.output;
  const value = await fieldsOf(file, ctx, engine.expressions)(
    ['continuation', 'when'],
    continuation.when,
    output,
  );
  return isTruthy(value);
}

/** After `page`: the next page's request, or why paging ends (cleanly, or as a PagingError). */
async function nextRequest(
  engine: Engine,
  name: string,
  execution: Execution,
  page: number,
): Promise<Paged | { request: PageRequest }> {
  const { file, ctx } = execution;
  const output = execution.result.status === 'ok' ? execution.result.output : undefined;
  const continuation = file.definition.continuation;
  if (!continuation) return { pages: page, stopped: 'done' };
  const evaluate = fieldsOf(file, ctx, engine.expressions);
  const field = (path: string[], raw: unknown) => evaluate(path, raw, output);
  if (!(await continues(engine, execution))) return { pages: page, stopped: 'done' };
  if (page >= engine.options.maxPages)
    throw new PagingError(
      'PAGE_LIMIT',
      `function '${name}': the service still offered more pages after ${page}, the page cap (settings.sync.maxPages in solution.yaml): raise it, or narrow what the function asks for`,
      page,
    );
  let url: string | undefined;
  if (continuation.url !== undefined) {
    const value = await field(['continuation', 'url'], continuation.url);
    url = value === undefined || value === null ? '' : String(value);
    // Without a url the next page would be the function's own address again.
    if (url.trim() === '')
      throw stalled(
        name,
        page + 1,
        `continuation.url gave ${typeof value === 'string' ? 'an empty string' : String(value ?? 'nothing')} (${file.yaml.file}); if the service ends with an empty or null link, make continuation.when false then (=@ctx.response.body.next != null: $exists() is true for null)`,
      );
  }
  return { request: { url, parameters: continuation.parameters ?? {}, previous: ctx } };
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
