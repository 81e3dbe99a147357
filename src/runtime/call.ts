import { CredentialError } from '../errors/credential-error.js';
import { decideRetry, type Failure } from '../errors/retry.js';
import { parseRetryAfter } from '../errors/retry-after.js';
import { type AbortLike, toSignal } from '../http/abort.js';
import { boundaryOf, buildRequest, type PlacedValue, shownRequest } from '../http/build-request.js';
import { bodyText, isUtf8Encoding, textEncoding } from '../http/charset.js';
import {
  AbortedError,
  CallError,
  NetworkError,
  RemoteError,
  type RequestSummary,
  TimeoutError,
} from '../http/errors.js';
import { type Format, parseBody } from '../http/parse-body.js';
import { type RequestBudget, RequestLimitError } from '../http/request-budget.js';
import type { RawResponse } from '../http/transport.js';
import { applyConversions } from '../local/conversions.js';
import type { StagedWrite } from '../local/stage.js';
import { bodyFiles } from './body-files.js';
import type { ExecutionContext } from './context.js';
import { conversionList } from './conversion-list.js';
import { applyCredentials } from './credentials.js';
import type { Engine, FunctionFile, PageRequest } from './engine.js';
import { bodyExcerpt, ERROR_BODY_LIMIT, TRACE_BODY_LIMIT } from './excerpt.js';
import type { Field } from './field.js';
import { handlerRetry, judge, type Verdict } from './judge.js';
import {
  BYTE_ENCODINGS,
  type ByteEncoding,
  maskBytes,
  maskError,
  maskHeaders,
  maskJson,
  maskText,
} from './mask.js';
import type { ResolvedParameter } from './parameters.js';
import type { FunctionPlan } from './plan.js';
import { reportFailure } from './report.js';
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
  readonly plan: FunctionPlan;
  /** Where error handlers' table records go; the call itself never touches local data. */
  readonly writeErrorTables: ((writes: readonly StagedWrite[]) => void) | undefined;
  /** Told the credential texts of every attempt. */
  readonly collect?: SecretCollector | undefined;
  /** The execution's requests left (`maxRequestsPerExecution`), shared with its guards; none: no cap. */
  readonly budget?: RequestBudget | undefined;
}

/**
 * Gathers the credential texts (values in their placed forms, and their references) every call of
 * one execution used, across attempts, guards and pages: what the platform masks its whole answer
 * against, once, at the edge.
 */
export type SecretCollector = Set<string>;

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
 * thrown with its attempt count. One async function for the retries, one per attempt.
 */
export async function callWithRetries(args: CallArgs): Promise<CallResult> {
  const { engine, file, ctx, field, signal } = args;
  const definition = file.definition;
  // The credential values of the latest attempt: what error texts and excerpts must mask. Any
  // error may quote them: a body that is not JSON (the engine quotes its start), a handler text.
  const seen: Seen = { secrets: NO_SECRETS };
  try {
    const canRefreshToken =
      !definition.disableTokenRefresh && args.parameters.some((p) => p.credential === 'oauth');
    let refreshToken = false;
    for (let retries = 0; ; retries++) {
      let answer: Answer | undefined;
      let failed: CallError | undefined;
      try {
        answer = await attempt(args, refreshToken, seen);
        ctx.error = undefined;
      } catch (error) {
        if (missingCredential(error)) await credentialMissing(args, error, seen);
        // The request cap ends the execution: no handler judges it, no retry can help.
        if (
          !(error instanceof CallError) ||
          error instanceof AbortedError ||
          error instanceof RequestLimitError
        )
          throw error;
        ctx.error = { name: error.code, message: error.message };
        failed = error;
      }

      const defaultFailed = answer === undefined || answer.raw.status >= 400;
      const verdict: Verdict = definition.error?.length
        ? await judge(definition.error, defaultFailed, ctx, field)
        : { isError: defaultFailed };
      if (!verdict.isError) {
        // A handler cannot turn a call that got no answer into a success.
        if (answer === undefined) throw failed;
        return { raw: answer.raw, parsed: answer.parsed, secrets: seen.secrets };
      }

      const failure: Failure = answer
        ? {
            kind: 'status',
            status: answer.raw.status,
            retryAfterMs: parseRetryAfter(answer.raw.headers['retry-after'], engine.options.clock.now()),
          }
        : {
            kind:
              failed instanceof TimeoutError
                ? 'timeout'
                : failed instanceof NetworkError
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
        if (args.budget?.spent) {
          const limited = new RequestLimitError(summaryOf(ctx), args.budget.max, args.budget.count);
          limited.attempts = retries + 1;
          throw limited;
        }
        engine.options.observer?.retry(file.name);
        if (engine.events.active) {
          engine.events.emit({
            type: 'retried',
            correlationId: ctx.correlationId,
            function: file.name,
            attempt: retries + 2,
            delayMs: decision.delayMs,
            reason: decision.reason,
            cause: answer
              ? `answered ${answer.raw.status} ${answer.raw.statusText}`.trim()
              : `${failed!.code}: ${failed!.message}`,
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

      const error = answer ? new RemoteError(summaryOf(ctx), ctx.response!) : failed!;
      error.attempts = retries + 1;
      if (answer) {
        // What the service said, as it may be shown: masked and bounded (non-enumerable, like `response`).
        const excerpt = bodyExcerpt(
          answer.raw.bytes,
          answer.raw.headers['content-type'],
          seen.secrets,
          ERROR_BODY_LIMIT,
        );
        error.report({ bodyExcerpt: excerpt });
      }
      if (answer?.raw.status === 401 && seen.schemeless !== undefined) {
        const key = seen.schemeless;
        error.message += `; credential '${key}' went in Authorization as it is stored, with no scheme: if the service expects 'Bearer <token>', store it as a bearer credential (restfn credentials set ${key} --kind bearer)`;
      }
      if (verdict.index !== undefined) {
        error.handler = verdict.index + 1;
        error.message += ` (error handler ${verdict.index + 1} matched)`;
      }
      await reportFailure({
        engine,
        file,
        ctx,
        verdict,
        error,
        field,
        secrets: seen.secrets,
        writeErrorTables: args.writeErrorTables,
      });
      throw error;
    }
  } catch (error) {
    throw maskError(error, seen.secrets);
  }
}

/**
 * The names the platform gives a missing credential or login, as handlers test them
 * (`when: =@ctx.error.name = 'OAuthCredentialsMissingError'`): an OAuth credential not stored, not
 * logged in or whose refresh was refused; any other credential not stored.
 */
function missingCredential(error: unknown): error is CredentialError {
  return (
    error instanceof CredentialError &&
    (error.code === 'CREDENTIAL_NOT_FOUND' ||
      error.code === 'LOGIN_REQUIRED' ||
      error.code === 'CONNECTION_REQUIRED')
  );
}

/**
 * A missing credential or login is an error the handlers see before the run stops: the first
 * whose `when` holds (or a handler without `when`) reports it as a failed call would be reported
 * (its texts, operations into error tables, alert). Nothing is retried (no wait brings a login
 * back); the run then fails with the credential's own coded error, carrying the handler's texts
 * and alert. With no handler matching, it fails as before, with no alert.
 */
async function credentialMissing(args: CallArgs, error: CredentialError, seen: Seen): Promise<void> {
  const { engine, file, ctx, field } = args;
  const handlers = file.definition.error;
  if (!handlers?.length) return;
  const oauth =
    (error as { credentialKind?: string }).credentialKind === 'oauth' ||
    error.code !== 'CREDENTIAL_NOT_FOUND';
  ctx.error = {
    name: oauth ? 'OAuthCredentialsMissingError' : 'CredentialNotFoundError',
    message: error.message,
  };
  const verdict = await judge(handlers, true, ctx, field);
  if (!verdict.handler) return;
  await reportFailure({
    engine,
    file,
    ctx,
    verdict,
    error,
    field,
    secrets: seen.secrets,
    writeErrorTables: args.writeErrorTables,
  });
}

/** What an attempt that got an answer gives. */
interface Answer {
  readonly raw: RawResponse;
  readonly parsed: unknown;
}

const NO_SECRETS: readonly string[] = Object.freeze([]);
const NO_NAMES: ReadonlySet<string> = new Set();

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function summaryOf(ctx: ExecutionContext): RequestSummary {
  return { method: ctx.request!.method, url: ctx.request!.url };
}

/** One attempt: credentials, inputTransform, conversions, the request, the response parsed by format. */
interface Seen {
  secrets: readonly string[];
  /** A credential sent as a bare token in `Authorization` (no scheme): named when the service says 401. */
  schemeless?: string | undefined;
}

async function attempt(args: CallArgs, refreshToken: boolean, seen: Seen): Promise<Answer> {
  const { engine, file, ctx, field, parameters, transform, page, signal } = args;
  const definition = file.definition;
  const { events } = engine;
  const localCall = definition.useLocalCall === true;
  // Without credential parameters there is nothing to apply (and nothing to await).
  const { placed, secrets, refs, schemeless } = parameters.some((p) => p.credential)
    ? await applyCredentials(engine, parameters, {
        signal,
        refresh: refreshToken,
        localCall,
        ...(typeof ctx.user.id === 'string' ? { user: ctx.user.id } : {}),
      })
    : {
        placed: [...parameters] as PlacedValue[],
        secrets: NO_SECRETS,
        refs: undefined,
        schemeless: undefined,
      };
  seen.secrets = secrets;
  seen.schemeless = schemeless;
  if (args.collect) for (const text of secrets) args.collect.add(text);

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

  // Files of a form, multipart or binary body: read (a device's file://) or decoded into bytes.
  const sendable = bodyFiles(placed, outgoing, definition.parameters, engine.files);

  // A `url` written as an expression is evaluated per attempt, over the context.
  const url =
    page?.url ??
    (args.plan.urlIsExpression ? String(await field(['url'], definition.url, ctx)) : definition.url);
  const keepQuery = page?.url !== undefined;
  const built = buildRequest(definition.method, url, sendable.placed, sendable.transformed, keepQuery);
  const request = refs ? { ...built, refs } : built;
  // What is shown (events, @ctx.request, error messages) is the same request built with every
  // credential's field masked as a whole, then searched for credential values in any encoding
  // (a next link or a transform may carry one elsewhere).
  const shown =
    secrets.length === 0
      ? request
      : shownRequest(
          definition.method,
          url,
          sendable.placed,
          sendable.transformed && { value: maskJson(sendable.transformed.value, secrets) },
          keepQuery,
          boundaryOf(built.headers),
        );
  // A queued command's call carries its id as the idempotency key: the same on every resend, so a
  // service that honours the header applies a retried POST once (the function may set its own).
  if (typeof ctx.commandId === 'string' && !IDEMPOTENT_METHODS.has(request.method))
    for (const headers of [request.headers, shown.headers]) headers['idempotency-key'] ??= ctx.commandId;
  const summary: RequestSummary = { method: request.method, url: maskText(shown.url, secrets) };
  // The headers as shown are masked when first read (a trace, an expression reading
  // @ctx.request.headers), not on every call.
  let shownHeaders: Record<string, string> | undefined;
  const requestHeaders = () => {
    if (shownHeaders) return shownHeaders;
    const credentialHeaders = new Set<string>();
    for (const p of placed)
      if (p.secret && p.location === 'header') credentialHeaders.add(p.name.toLowerCase());
    shownHeaders = maskHeaders(shown.headers, credentialHeaders, secrets);
    return shownHeaders;
  };
  ctx.request = {
    method: request.method,
    url: summary.url,
    get headers() {
      return requestHeaders();
    },
    set headers(value) {
      shownHeaders = value;
    },
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
      headers: requestHeaders(),
      body: shownBody,
    });
  }
  const sent = performance.now();
  // The status answered, or the code of the failure that left no answer.
  let outcome = 'INTERNAL';
  let raw: RawResponse;
  try {
    raw = await engine.transport.send(request, summary, signal, args.budget);
    outcome = String(raw.status);
  } catch (error) {
    outcome = (error as { code?: string } | null)?.code ?? outcome;
    throw error;
  } finally {
    engine.options.observer?.call(file.name, (performance.now() - sent) / 1000, outcome);
  }
  const format = definition.format as Format;
  // On the platform, bytes no parser reads as text (a binary format), and UTF-16 a service sent
  // without saying so, are scrubbed as bytes before anything (a trace, a transform) reads them.
  if (engine.options.maskOutput && secrets.length > 0)
    raw = { ...raw, bytes: maskBytes(raw.bytes, secrets, scrubbedEncodings(format, raw)) };
  // Response headers as shown and as expressions see them: cookies, credential-like headers and
  // echoed credential values masked (when first read).
  let headers: Record<string, string> | undefined;
  const responseHeaders = () => {
    headers ??= maskHeaders(raw.headers, NO_NAMES, secrets);
    return headers;
  };
  if (events.active) {
    const durationMs = performance.now() - sent;
    events.emit({
      type: 'response',
      correlationId,
      function: file.name,
      status: raw.status,
      durationMs,
      headers: responseHeaders(),
      body: bodyExcerpt(raw.bytes, raw.headers['content-type'], secrets, TRACE_BODY_LIMIT),
    });
  }
  const noBody = raw.status === 204 || request.method === 'HEAD';
  const depth = engine.options.http.maxResponseDepth;
  // Error bodies are parsed leniently: a 500 page in HTML must not hide the status behind a format error.
  const received = noBody
    ? null
    : raw.status >= 400
      ? lenient(format, raw, summary, depth)
      : parseBody(format, raw.bytes, raw.headers['content-type'], summary, depth);
  // On the platform no transform, script, error handler or caller may see a credential the service
  // echoed (reshaped, it would pass any mask applied later): the answer is scrubbed before them all.
  const parsed = engine.options.maskOutput && secrets.length > 0 ? maskJson(received, secrets) : received;
  ctx.response = {
    ok: raw.status < 400,
    status: raw.status,
    statusText: raw.statusText,
    get headers() {
      return responseHeaders();
    },
    set headers(value) {
      headers = value;
    },
    body: parsed,
  };
  return { raw, parsed };
}

function lenient(format: Format, raw: RawResponse, summary: RequestSummary, maxDepth: number): unknown {
  const type = raw.headers['content-type'];
  try {
    return parseBody(format, raw.bytes, type, summary, maxDepth);
  } catch {
    try {
      return bodyText(raw.bytes, type, summary);
    } catch {
      return raw.bytes.toString('utf8');
    }
  }
}

const NOT_UTF8: readonly ByteEncoding[] = BYTE_ENCODINGS.filter((e) => e !== 'utf8');

/**
 * The encodings a response's bytes are scrubbed in before anything reads them: every one for bytes
 * no parser reads as text (`format: pdf`); for text, every one but UTF-8 when the text is read as
 * UTF-8 (its UTF-8 forms are masked in the parsed text), else all of them (text in a charset it is
 * not really in would otherwise hide them from that mask).
 */
function scrubbedEncodings(format: Format, raw: RawResponse): readonly ByteEncoding[] {
  if (format === 'pdf') return BYTE_ENCODINGS;
  const encoding = textEncoding(raw.bytes, raw.headers['content-type'], format === 'xml');
  return isUtf8Encoding(encoding) ? NOT_UTF8 : BYTE_ENCODINGS;
}
