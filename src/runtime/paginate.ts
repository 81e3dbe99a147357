import { createHash } from 'node:crypto';
import { isTruthy } from '../expression/evaluate.js';
import type { CallContext } from './context.js';
import { fieldsOf } from './field.js';
import { type Engine, type Execution, type PageRequest, runFunction } from './pipeline.js';

/** Why paging stopped. `page-cap` and `repeated-page` are reported, never silent. */
export type StopReason = 'done' | 'skipped' | 'page-cap' | 'repeated-page';

/**
 * Runs a function and follows its `continuation` page by page, handing each page to `onPage` before
 * the next is fetched (so pages stream). Stops when `continuation.when` is falsy, when the function's
 * `when` turns false, at the page cap, or when a response body repeats the previous one exactly (that
 * page is not handed on).
 */
export async function paginate(
  engine: Engine,
  name: string,
  given: Readonly<Record<string, unknown>>,
  call: CallContext,
  onPage: (execution: Execution, page: number) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<{ pages: number; stopped: StopReason }> {
  let request: PageRequest | undefined;
  let previousSignature: string | undefined;
  for (let page = 1; ; page++) {
    const execution = await runFunction(engine, name, given, call, signal, request);
    if (execution.result.status === 'skipped') {
      if (page === 1 || execution.guardFailed) await onPage(execution, page);
      return { pages: page - 1, stopped: page === 1 ? 'skipped' : 'done' };
    }
    const output = execution.result.output;
    // An exact repeat is the same response body, byte for byte.
    const signature = createHash('sha1')
      .update(execution.bytes ?? '')
      .digest('hex');
    if (signature === previousSignature) return { pages: page - 1, stopped: 'repeated-page' };
    previousSignature = signature;
    await onPage(execution, page);

    const { file, ctx } = execution;
    const continuation = file.definition.continuation;
    if (!continuation) return { pages: page, stopped: 'done' };
    const evaluate = fieldsOf(file, ctx, engine.expressions);
    const field = (path: string[], raw: unknown) => evaluate(path, raw, output);
    if (!isTruthy(await field(['continuation', 'when'], continuation.when)))
      return { pages: page, stopped: 'done' };
    if (page >= engine.options.maxPages) return { pages: page, stopped: 'page-cap' };
    const url =
      continuation.url === undefined ? undefined : await field(['continuation', 'url'], continuation.url);
    request = {
      url: url === undefined || url === null ? undefined : String(url),
      parameters: continuation.parameters ?? {},
      previous: ctx,
    };
  }
}
