import type { PropertyPath } from '../definition/yaml-file.js';
import { CredentialError } from '../errors/credential-error.js';
import { localize } from '../errors/localize.js';
import {
  type CallError,
  NetworkError,
  RemoteError,
  ResponseFormatError,
  TimeoutError,
} from '../http/errors.js';
import { type StagedWrite, toRow } from '../local/stage.js';
import type { ExecutionContext } from './context.js';
import type { Engine, FunctionFile } from './engine.js';
import type { Field } from './field.js';
import type { Verdict } from './judge.js';
import { maskJson, maskText } from './mask.js';
import { responseInput, unwrapResult } from './transform-input.js';
import { asList, planOperations } from './writes.js';

const DETAILS_LIMIT = 2000;

/**
 * Reports a final failure: title, description and details on the error (handler texts, localised,
 * else the provider's), the handler's error-table operations written at once (default table
 * `{entity}_error`), and an alert when the handler asks for one or no custom handler matched.
 */
export async function reportFailure(report: {
  readonly engine: Engine;
  readonly file: FunctionFile;
  readonly ctx: ExecutionContext;
  readonly verdict: Verdict;
  /** The failure: a call's, or a missing credential's (the handlers see it before the run stops). */
  readonly error: CallError | CredentialError;
  readonly field: Field;
  /**
   * The credential values of the failed call: masked in the texts shown to the user and in the
   * records the handler writes (a handler logging `@ctx.response.body` must not store an echoed
   * token in clear).
   */
  readonly secrets: readonly string[];
  /** Writes the handler's error-table records; absent where there are no local tables (the platform). */
  readonly writeErrorTables: ((writes: readonly StagedWrite[]) => void) | undefined;
}): Promise<void> {
  const { engine, file, ctx, verdict, error, field, secrets, writeErrorTables } = report;
  const mask = (text: string) => maskText(text, secrets);
  const handler = verdict.handler;
  const at: PropertyPath = ['error', verdict.index ?? 0];
  const locale = engine.options.locale;
  const status = error instanceof RemoteError ? `${error.status} ${error.statusText}`.trim() : undefined;
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
  // A handler's texts are text or expressions (over @ctx, `$` too), in the user's language; shown
  // masked. One that fails to evaluate falls back to what stands without it.
  const text = async (raw: Localizable | undefined, path: PropertyPath): Promise<string | undefined> => {
    const picked = localized(raw, locale, path);
    if (!picked) return undefined;
    const value = await guarded(() => field(picked.path, picked.text, ctx));
    if (value === undefined || value === null) return undefined;
    return mask(typeof value === 'string' ? value : JSON.stringify(value));
  };
  const title = (await text(handler?.title, [...at, 'title'])) ?? defaultTitle(error);
  const description =
    (await text(handler?.description, [...at, 'description'])) ??
    (status ? `The service answered ${status}` : error.message);
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
  if (handler?.operations?.length && writeErrorTables) {
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
      writeErrorTables(maskedWrites(writes, secrets));
    });
  }
  // The older form of an error-table write: `transform` gives the record(s), `table` the table.
  if (handler?.transform !== undefined && writeErrorTables) {
    const { table, transform } = handler;
    await guarded(async () => {
      const into =
        table === undefined ? `${entity}_error` : String(await field([...at, 'table'], table, ctx));
      const records = asList(await field([...at, 'transform'], transform, ctx.output, true));
      const rows = records.map((r) => toRow(r));
      writeErrorTables(maskedWrites([{ kind: 'rows', table: into, merge: true, rows }], secrets));
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
    const where: PropertyPath = [...at, 'alert'];
    const raised = engine.alerts.raise(
      {
        title: (await text(alert?.title, [...where, 'title'])) ?? title,
        ...(alert?.subtitle === undefined
          ? {}
          : { subtitle: await text(alert.subtitle, [...where, 'subtitle']) }),
        description: (await text(alert?.description, [...where, 'description'])) ?? description,
        icon: alert?.icon ?? handler?.icon,
        ...tone(alert?.style),
        presentAs: alert?.presentAs ?? 'toast',
        groupId: alert?.group?.id,
        ...(alert?.dismiss === undefined
          ? {}
          : { dismiss: await dismissOf(alert.dismiss, [...where, 'dismiss'], field, ctx, guarded) }),
        ...(alert?.actions === undefined
          ? {}
          : {
              actions: await Promise.all(
                alert.actions.map(async (button, i) => ({
                  title: (await text(button.title, [...where, 'actions', i, 'title'])) ?? '',
                  action: button.action,
                })),
              ),
            }),
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

type Localizable = string | Readonly<Record<string, string>>;

/** The text of `raw` in `locale`, with the path of the one picked (a language's own, in a map). */
function localized(
  raw: Localizable | undefined,
  locale: string,
  path: PropertyPath,
): { text: string; path: PropertyPath } | undefined {
  const text = localize(raw, locale);
  if (text === undefined || raw === undefined) return undefined;
  if (typeof raw === 'string') return { text, path };
  const key = Object.keys(raw).find((k) => raw[k] === text);
  return { text, path: key === undefined ? path : [...path, key] };
}

/** The alert's tone: one of the three (isNegative unless another is set, restfn's default for an error). */
function tone(style: { isNegative?: boolean; isWarning?: boolean; isPositive?: boolean } | undefined) {
  const isPositive = style?.isPositive === true;
  const isWarning = !isPositive && style?.isWarning === true;
  return { isNegative: style?.isNegative ?? !(isPositive || isWarning), isWarning, isPositive };
}

/** `dismiss`: seconds (closes by itself), or `{ autoAfter, isEnabled }`; seconds may be expressions. */
async function dismissOf(
  dismiss: number | string | { autoAfter?: number | string | undefined; isEnabled?: boolean | undefined },
  at: PropertyPath,
  field: Field,
  ctx: ExecutionContext,
  guarded: <T>(step: () => Promise<T>) => Promise<T | undefined>,
): Promise<{ isEnabled: boolean; autoAfterSeconds?: number }> {
  const { autoAfter, isEnabled = true } =
    typeof dismiss === 'object' ? dismiss : { autoAfter: dismiss, isEnabled: true };
  const path = typeof dismiss === 'object' ? [...at, 'autoAfter'] : at;
  const seconds =
    autoAfter === undefined ? undefined : Number(await guarded(() => field(path, autoAfter, ctx)));
  return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0
    ? { isEnabled, autoAfterSeconds: seconds }
    : { isEnabled };
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
export function defaultTitle(error: CallError | CredentialError): string {
  if (error instanceof CredentialError) return 'Sign-in needed';
  if (error instanceof RemoteError) return 'Request failed';
  if (error instanceof TimeoutError) return 'Service did not answer in time';
  if (error instanceof NetworkError && error.causeCode !== undefined && UNREACHABLE.has(error.causeCode))
    return 'Service unreachable';
  if (error instanceof ResponseFormatError) return 'Unexpected response';
  return 'Request failed';
}
