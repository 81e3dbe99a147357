import type { ErrorHandler } from '../definition/schema/index.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import { localize } from '../errors/localize.js';
import { isTruthy } from '../expression/evaluate.js';
import {
  type CallError,
  NetworkError,
  RemoteError,
  ResponseFormatError,
  TimeoutError,
} from '../http/errors.js';
import { Stage, type StagedWrite, toRow } from '../local/stage.js';
import type { ExecutionContext } from './context.js';
import type { Field } from './field.js';
import { maskJson, maskText } from './mask.js';
import type { Engine, FunctionFile } from './pipeline.js';
import { responseInput, unwrapResult } from './transform-input.js';
import { asList, planOperations } from './writes.js';

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

const DETAILS_LIMIT = 2000;

/**
 * Reports a final failure: title, description and details on the error (handler texts, localised,
 * else the provider's), the handler's error-table operations written at once (default table
 * `{entity}_error`), and an alert when the handler asks for one or no custom handler matched.
 */
export async function reportFailure(
  engine: Engine,
  file: FunctionFile,
  ctx: ExecutionContext,
  verdict: Verdict,
  error: CallError,
  field: Field,
  /**
   * The credential values of the failed call: masked in the texts shown to the user and in the
   * records the handler writes (a handler logging `@ctx.response.body` must not store an echoed
   * token in clear).
   */
  secrets: readonly string[] = [],
): Promise<void> {
  const mask = (text: string) => maskText(text, secrets);
  const handler = verdict.handler;
  const at: PropertyPath = ['error', verdict.index ?? 0];
  const locale = engine.options.locale;
  const status = error instanceof RemoteError ? `${error.status} ${error.statusText}`.trim() : undefined;
  const title = localize(handler?.title, locale) ?? defaultTitle(error);
  const description =
    localize(handler?.description, locale) ?? (status ? `The service answered ${status}` : error.message);
  // Reporting must not hide the failure it reports: its own problems are attached, not thrown.
  const problems: Error[] = [];
  const guarded = async <T>(step: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await step();
    } catch (problem) {
      problems.push(problem instanceof Error ? problem : new Error(String(problem)));
      return undefined;
    }
  };
  const rawDetails =
    handler?.details !== undefined
      ? await guarded(() => field([...at, 'details'], handler.details, ctx))
      : ctx.response?.body;
  const details = rawDetails === undefined || rawDetails === null ? undefined : truncate(rawDetails, mask);
  error.title = title;
  error.description = description;
  // Without a handler's `details`, they are the response body: the CLI then shows the body once.
  error.report({ details, detailsFrom: handler?.details !== undefined ? 'handler' : 'response' });

  const entity = typeof ctx.entity === 'string' ? ctx.entity : file.name;
  const store = engine.store;
  if (handler?.operations?.length && store) {
    const operations = handler.operations;
    await guarded(async () => {
      const writes = await planOperations(
        engine,
        file,
        ctx,
        operations,
        [...at, 'operations'],
        `${entity}_error`,
      );
      Stage.apply(store, maskedWrites(writes, secrets));
    });
  }
  // The older form of an error-table write: `transform` gives the record(s), `table` the table.
  if (handler?.transform !== undefined && store) {
    const { table, transform } = handler;
    await guarded(async () => {
      const into =
        table === undefined ? `${entity}_error` : String(await field([...at, 'table'], table, ctx));
      const records = asList(await field([...at, 'transform'], transform, ctx.output, true));
      const rows = records.map((r) => toRow(r));
      Stage.apply(store, maskedWrites([{ kind: 'rows', table: into, merge: true, rows }], secrets));
    });
  }
  // The older `errorTransform`: its result is what the failed function gives back (`error.output`).
  const errorTransform = file.definition.errorTransform;
  if (errorTransform !== undefined) {
    const response = error instanceof RemoteError ? ctx.response : undefined;
    const body = response?.body ?? null;
    const input = responseInput(body, response, ctx.parameters);
    const output = await guarded(async () =>
      unwrapResult(await field(['errorTransform'], errorTransform, input, true), input, body),
    );
    error.report({ output });
  }
  if (problems.length > 0) {
    error.report({ reportErrors: problems });
    error.message += ` (reporting it failed too: ${problems[0]!.message})`;
  }

  const notify =
    handler === undefined ||
    handler.notification === true ||
    (handler.notification === undefined && handler.alert !== undefined);
  if (notify) {
    const alert = handler?.alert;
    const raised = engine.alerts.raise(
      {
        title: localize(alert?.title, locale) ?? title,
        description: localize(alert?.description, locale) ?? description,
        icon: alert?.icon,
        isNegative: alert?.style?.isNegative ?? true,
        presentAs: alert?.presentAs ?? 'toast',
        groupId: alert?.group?.id,
        correlationId: ctx.correlationId,
        function: file.name,
      },
      handler === undefined,
    );
    // What a caller far from the device (the platform's answer) shows as the alert.
    error.report({ alert: raised });
    if (engine.events.active)
      engine.events.emit({
        type: 'alert',
        correlationId: ctx.correlationId,
        function: file.name,
        alert: raised,
      });
  }
}

/** A handler's error-table writes with every credential value in their records or SQL values masked. */
function maskedWrites(writes: readonly StagedWrite[], secrets: readonly string[]): StagedWrite[] {
  if (secrets.length === 0) return [...writes];
  return writes.map((w) => {
    if (w.kind === 'rows')
      return { ...w, rows: w.rows.map((r) => ({ ...r, data: maskJson(r.data, secrets) })) };
    if (w.kind === 'sql') return { ...w, parameters: maskJson(w.parameters, secrets) };
    return w;
  });
}

/** Masked first, then cut: a cut through a secret would leave part of it unmasked. */
function truncate(value: unknown, mask: (text: string) => string): string {
  const text = mask(typeof value === 'string' ? value : JSON.stringify(value));
  return text.length > DETAILS_LIMIT
    ? `${text.slice(0, DETAILS_LIMIT)}... (${text.length} characters)`
    : text;
}

/** Failures where no answer came back at all: the service could not be reached. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * The title of a failure no handler names: "Service unreachable" only when the network failed or
 * the service never answered; a bad answer (an error status, a body not in the expected format) or
 * a request refused before it left is not the service being unreachable.
 */
export function defaultTitle(error: CallError): string {
  if (error instanceof RemoteError) return 'Request failed';
  if (error instanceof TimeoutError) return 'Service did not answer in time';
  if (error instanceof NetworkError && error.causeCode !== undefined && UNREACHABLE.has(error.causeCode))
    return 'Service unreachable';
  if (error instanceof ResponseFormatError) return 'Unexpected response';
  return 'Request failed';
}
