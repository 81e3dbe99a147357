import { decideRetry, type Failure } from '../errors/retry.js';
import { parseRetryAfter } from '../errors/retry-after.js';
import { isExpression } from '../expression/source.js';
import { type AbortLike, toSignal } from '../http/abort.js';
import { buildRequest, shownRequest } from '../http/build-request.js';
import {
  AbortedError,
  CallError,
  NetworkError,
  RemoteError,
  type RequestSummary,
  TimeoutError,
} from '../http/errors.js';
import { type Format, parseBody } from '../http/parse-body.js';
import type { RawResponse } from '../http/transport.js';
import { applyConversions } from '../local/conversions.js';
import type { ExecutionContext } from './context.js';
import { bodyExcerpt, ERROR_BODY_LIMIT, TRACE_BODY_LIMIT } from './excerpt.js';
import { handlerRetry, judge, reportFailure } from './failure.js';
import type { Field } from './field.js';
import { maskError, maskHeaders, maskJson, maskText } from './mask.js';
import type { ResolvedParameter } from './parameters.js';
import {
  applyCredentials,
  conversionList,
  type Engine,
  type FunctionFile,
  type PageRequest,
} from './pipeline.js';
import { transformValues } from './transform-input.js';

export interface CallArgs {
  readonly engine: Engine;
  readonly file: FunctionFile;
  readonly ctx: ExecutionContext;
  readonly field: Field;
  readonly parameters: readonly ResolvedParameter[];
  /** The inputTransform, when there is one: parameter values in, the body out. */
  readonly transform: ((values: Record<string, unknown>) => Promise<unknown>) | undefined;
  readonly page: PageRequest | undefined;
  readonly signal: AbortLike | undefined;
}

export interface CallResult {
  readonly raw: RawResponse;
  readonly parsed: unknown;
  /** The credential values the call used: what later error texts (outputTransform) must mask. */
  readonly secrets: readonly string[];
}

/**
 * The outbound call with spec 7's error handling: after every attempt the `error` handlers judge the
 * result; an error is retried as the matching handler or the defaults decide (one pure decision),
 * sleeping on the injectable clock; the final failure is reported (texts, alert, error tables) and
 * thrown with its attempt count.
 */
export async function callWithRetries(args: CallArgs): Promise<CallResult> {
  // The credential values of the latest attempt: what error texts and excerpts must mask. Any
  // error may quote them: a body that is not JSON (the engine quotes its start), a handler text.
  const seen: Seen = { secrets: [] };
  try {
    return { ...(await judgedCall(args, seen)), secrets: seen.secrets };
  } catch (error) {
    throw maskError(error, seen.secrets);
  }
}

async function judgedCall(args: CallArgs, seen: Seen): Promise<Omit<CallResult, 'secrets'>> {
  const { engine, file, ctx, field, signal } = args;
  const definition = file.definition;
  const canRefreshToken =
    !definition.disableTokenRefresh && args.parameters.some((p) => p.credential === 'oauth');
  let refreshToken = false;
  for (let retries = 0; ; retries++) {
    let outcome: { ok: true; raw: RawResponse; parsed: unknown } | { ok: false; error: CallError };
    try {
      outcome = { ok: true, ...(await attempt(args, refreshToken, seen)) };
      ctx.error = undefined;
    } catch (error) {
      if (!(error instanceof CallError) || error instanceof AbortedError) throw error;
      ctx.error = { name: error.code, message: error.message };
      outcome = { ok: false, error };
    }

    const defaultFailed = !outcome.ok || outcome.raw.status >= 400;
    const verdict = definition.error?.length
      ? await judge(definition.error, defaultFailed, ctx, field)
      : { isError: defaultFailed };
    if (!verdict.isError) {
      // A handler cannot turn a call that got no answer into a success.
      if (!outcome.ok) throw outcome.error;
      return { raw: outcome.raw, parsed: outcome.parsed };
    }

    const failure: Failure = outcome.ok
      ? {
          kind: 'status',
          status: outcome.raw.status,
          retryAfterMs: parseRetryAfter(outcome.raw.headers['retry-after'], engine.options.clock.now()),
        }
      : {
          kind:
            outcome.error instanceof TimeoutError
              ? 'timeout'
              : outcome.error instanceof NetworkError
                ? 'network'
                : 'other',
        };
    const decision = decideRetry({
      retries,
      method: definition.method,
      failure,
      ...(verdict.handler ? { handler: { retry: await handlerRetry(verdict, ctx, field) } } : {}),
      canRefreshToken,
      defaults: engine.options.retry,
    });
    if (decision.retry) {
      if (engine.events.active) {
        engine.events.emit({
          type: 'retried',
          correlationId: ctx.correlationId,
          function: file.name,
          attempt: retries + 2,
          delayMs: decision.delayMs,
          reason: decision.reason,
          cause: outcome.ok
            ? `answered ${outcome.raw.status} ${outcome.raw.statusText}`.trim()
            : `${outcome.error.code}: ${outcome.error.message}`,
        });
      }
      try {
        await engine.options.clock.sleep(decision.delayMs, toSignal(signal));
      } catch (error) {
        throw signal?.aborted ? new AbortedError(summaryOf(ctx), error) : error;
      }
      refreshToken = decision.refreshToken;
      continue;
    }

    const error = outcome.ok ? new RemoteError(summaryOf(ctx), ctx.response!) : outcome.error;
    error.attempts = retries + 1;
    if (outcome.ok) {
      // What the service said, as it may be shown: masked and bounded (non-enumerable, like `response`).
      const excerpt = bodyExcerpt(
        outcome.raw.bytes,
        outcome.raw.headers['content-type'],
        seen.secrets,
        ERROR_BODY_LIMIT,
      );
      Object.defineProperty(error, 'bodyExcerpt', { value: excerpt, enumerable: false });
    }
    if (verdict.index !== undefined) {
      Object.assign(error, { handler: verdict.index + 1 });
      error.message += ` (error handler ${verdict.index + 1} matched)`;
    }
    await reportFailure(engine, file, ctx, verdict, error, field, (text) => maskText(text, seen.secrets));
    throw error;
  }
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function summaryOf(ctx: ExecutionContext): RequestSummary {
  return { method: ctx.request!.method, url: ctx.request!.url };
}

/** One attempt: credentials, inputTransform, conversions, the request, the response parsed by format. */
interface Seen {
  secrets: readonly string[];
}

async function attempt(
  args: CallArgs,
  refreshToken: boolean,
  seen: Seen,
): Promise<{ raw: RawResponse; parsed: unknown }> {
  const { engine, file, ctx, field, parameters, transform, page, signal } = args;
  const definition = file.definition;
  const { events } = engine;
  const localCall = definition.useLocalCall === true;
  const { placed, secrets } = await applyCredentials(engine, parameters, signal, refreshToken, localCall);
  seen.secrets = secrets;

  // 8. inputTransform, over the parameter values with body credentials resolved.
  let body: { value: unknown } | undefined;
  if (transform) {
    try {
      body = { value: await transform(transformValues(ctx.parameters, parameters, placed)) };
    } catch (error) {
      throw maskError(error, secrets);
    }
  }

  // 9. Conversions of the outgoing body (the inputTransform result, else the body parameters).
  let outgoing = body;
  if (definition.conversions) {
    const list = await conversionList(definition.conversions, ['conversions'], field, ctx);
    if (outgoing) {
      outgoing = { value: structuredClone(outgoing.value) };
      await applyConversions(outgoing.value, list, engine.files);
    } else {
      // A copy: the caller's values (and @ctx.parameters) stay unconverted, so a retry converts afresh.
      const values = structuredClone(
        Object.fromEntries(placed.filter((p) => p.location === 'body').map((p) => [p.name, p.value])),
      );
      await applyConversions(values, list, engine.files);
      placed.forEach((p, i) => {
        if (p.location === 'body') placed[i] = { ...p, value: values[p.name] };
      });
    }
  }

  // A `url` written as an expression is evaluated per attempt, over the context.
  const url =
    page?.url ??
    (isExpression(definition.url) ? String(await field(['url'], definition.url, ctx)) : definition.url);
  const keepQuery = page?.url !== undefined;
  const request = buildRequest(definition.method, url, placed, outgoing, keepQuery);
  // What is shown (events, @ctx.request, error messages) is the same request built with every
  // credential's field masked as a whole, then searched for credential values in any encoding
  // (a next link or a transform may carry one elsewhere).
  const shown =
    secrets.length === 0
      ? request
      : shownRequest(
          definition.method,
          url,
          placed,
          outgoing && { value: maskJson(outgoing.value, secrets) },
          keepQuery,
        );
  // A queued command's call carries its id as the idempotency key: the same on every resend, so a
  // service that honours the header applies a retried POST once (the function may set its own).
  if (typeof ctx.commandId === 'string' && !IDEMPOTENT_METHODS.has(request.method))
    for (const headers of [request.headers, shown.headers]) headers['idempotency-key'] ??= ctx.commandId;
  const summary: RequestSummary = { method: request.method, url: maskText(shown.url, secrets) };
  const credentialHeaders = new Set(
    placed.filter((p) => p.secret && p.location === 'header').map((p) => p.name.toLowerCase()),
  );
  const shownHeaders = maskHeaders(shown.headers, credentialHeaders, secrets);
  ctx.request = {
    method: request.method,
    url: summary.url,
    headers: shownHeaders,
    body: body && maskJson(body.value, secrets),
  };
  const correlationId = ctx.correlationId;
  if (events.active) {
    const shownBody =
      typeof shown.body === 'string'
        ? maskText(shown.body, secrets)
        : shown.body && `<${shown.body.length} bytes, ${shown.headers['content-type']}>`;
    events.emit({
      type: 'request',
      correlationId,
      function: file.name,
      ...summary,
      headers: shownHeaders,
      body: shownBody,
    });
  }
  const sent = performance.now();
  const raw = await engine.transport.send(request, summary, signal, secrets.length > 0);
  // Response headers as shown and as expressions see them: cookies, credential-like headers and
  // echoed credential values masked.
  const headers = maskHeaders(raw.headers, new Set(), secrets);
  if (events.active) {
    const durationMs = performance.now() - sent;
    events.emit({
      type: 'response',
      correlationId,
      function: file.name,
      status: raw.status,
      durationMs,
      headers,
      body: bodyExcerpt(raw.bytes, raw.headers['content-type'], secrets, TRACE_BODY_LIMIT),
    });
  }
  const format = definition.format as Format;
  const noBody = raw.status === 204 || request.method === 'HEAD';
  const depth = engine.options.http.maxResponseDepth;
  // Error bodies are parsed leniently: a 500 page in HTML must not hide the status behind a format error.
  const parsed = noBody
    ? null
    : raw.status >= 400
      ? lenient(format, raw, summary, depth)
      : parseBody(format, raw.bytes, raw.headers['content-type'], summary, depth);
  ctx.response = {
    ok: raw.status < 400,
    status: raw.status,
    statusText: raw.statusText,
    headers,
    body: parsed,
  };
  return { raw, parsed };
}

function lenient(format: Format, raw: RawResponse, summary: RequestSummary, maxDepth: number): unknown {
  try {
    return parseBody(format, raw.bytes, raw.headers['content-type'], summary, maxDepth);
  } catch {
    return raw.bytes.toString('utf8');
  }
}
