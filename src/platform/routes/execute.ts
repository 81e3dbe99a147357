import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusOf } from '../../errors/codes.js';
import { RestfnError } from '../../errors/restfn-error.js';
import { Abort } from '../../http/abort.js';
import { checkAnswerSize } from '../answer-size.js';
import { authorize } from '../auth/authorize.js';
import type { PlatformContext } from '../context.js';
import { errorBody, PlatformError } from '../errors.js';
import type { CallAnswer, ExecuteAnswer } from '../executor/protocol.js';
import type { HeldBudget } from '../held-budget.js';
import { executionLabels } from '../metric-labels.js';
import { SOLUTION_NAME } from '../publish.js';

/** What fastify names a JSON answer it serialises itself. */
const JSON_TYPE = 'application/json; charset=utf-8';

interface ExecuteBody {
  readonly parameters?: Record<string, unknown>;
  /** What a screen would give (`current.item`, `components`, ...); `user` is the token's user. */
  readonly context?: Record<string, unknown>;
  /** Follow `continuation` and stream every page as NDJSON. */
  readonly pages?: boolean;
  /** Answer with the raw exchanges too (what was sent, what came back before `outputTransform`). */
  readonly trace?: boolean;
  /** Answer with the last request's method and url (credentials masked): `sent`. */
  readonly sent?: boolean;
}

type Params = { solution: string; function: string };

/**
 * Parameters may carry files (base64 or data URIs for a multipart or binary body): an execution's
 * or a call's body may be as large as an upload. Each is read whole and parsed once, and
 * `--max-concurrent-per-solution` bounds how many one solution sends at once.
 */
const CALL_BODY_LIMIT = 32 * 1024 * 1024;

interface CallBody {
  values?: Record<string, unknown>;
  continuation?: { url?: string };
  context?: { entity?: string; commandId?: string };
  /** The device's correlation id: the audit and the device's messages then name the same call. */
  correlationId?: string;
}

const FUNCTION_PARAMS = {
  type: 'object',
  required: ['solution', 'function'],
  properties: {
    solution: { type: 'string', pattern: SOLUTION_NAME.source },
    function: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

/**
 * Execution on the app's behalf (spec 1.4): the platform runs the function of the solution's
 * current version with the credentials of its vault, which never leave it. The answer is the
 * output, or the error with its stable code and the HTTP status the registry gives it (a remote
 * 404 is the platform's 502, with `remoteStatus: 404`).
 */
export function executeRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  app.post<{ Params: Params; Body: ExecuteBody }>(
    '/solutions/:solution/functions/:function/execute',
    {
      config: { permission: 'function.execute' },
      bodyLimit: CALL_BODY_LIMIT,
      preParsing: reserveBody(ctx),
      schema: {
        params: FUNCTION_PARAMS,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            parameters: { type: 'object' },
            context: { type: 'object' },
            pages: { type: 'boolean' },
            trace: { type: 'boolean' },
            sent: { type: 'boolean' },
          },
        },
      },
    },
    async (req, reply) => {
      const { solution } = req.params;
      const tracing = req.body?.trace === true;
      if (tracing) {
        const decision = authorize(req.user, 'function.trace', solution);
        if (!decision.allowed) throw new PlatformError('FORBIDDEN', decision.reason);
      }
      const release = ctx.slots.take(solution);
      try {
        return await execute(req, reply, tracing);
      } finally {
        release();
      }
    },
  );

  async function execute(
    req: FastifyRequest<{ Params: Params; Body: ExecuteBody }>,
    reply: FastifyReply,
    tracing: boolean,
  ) {
    const { solution, function: name } = req.params;
    const controller = abortOnHangUp(reply);
    const audited = auditor(ctx, req, 'execute', solution, name);
    const parameters = req.body?.parameters ?? {};
    const context = {
      ...(req.body?.context ?? {}),
      user: { id: req.user.id, name: req.user.name, displayName: req.user.name },
    };
    if (req.body?.pages === true) {
      return streamPages(ctx, req, reply, {
        solution,
        name,
        parameters,
        context,
        signal: controller.signal,
        audited,
        sent: req.body?.sent === true,
      });
    }
    const correlationId = randomUUID();
    try {
      const { value } = await ctx.runtimes.run(
        solution,
        {
          kind: 'execute',
          name,
          parameters,
          context,
          correlationId,
          trace: tracing,
          sent: req.body?.sent === true,
        },
        { signal: controller },
      );
      const answer = value as ExecuteAnswer;
      // A worker runs authors' work: its answer's status becomes a metric's label only as one of two.
      if (typeof answer?.json !== 'string' || (answer.status !== 'ok' && answer.status !== 'skipped'))
        throw new RestfnError('INTERNAL', 'the platform failed unexpectedly; the server log has the details');
      const body = holdAnswer(ctx, req, reply, answer.json);
      await audited(answer.status, correlationId);
      return reply.type(JSON_TYPE).send(body);
    } catch (error) {
      // Errors found before the call (parameters, credentials) carry the execution's id too.
      await audited(codeOf(error), withCorrelationId(error, correlationId), detailOf(error));
      withConnectUrl(ctx, solution, error);
      const { trace, sent } = error as { trace?: unknown; sent?: unknown };
      if ((!trace && !sent) || !(error instanceof RestfnError)) throw error;
      return reply
        .status(httpStatusOf(error.code))
        .send({ ...errorBody(error), ...(trace ? { trace } : {}), ...(sent ? { sent } : {}) });
    }
  }
}

/**
 * Previews for the console, audited like executions and needing what an execute needs. An action
 * runs in the solution's worker against a throwaway database holding only the screen's item, with
 * no push: the local change and the calls it would queue, nothing sent. A datasource calls the
 * service as a sync would (a few pages each) into a throwaway in-memory database and answers the
 * rows each table would get; it runs the author's SQL, so it runs in a sandbox process
 * (executor/sandbox.ts). Nothing is stored, here or on a device.
 */
export function previewRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  const schema = (kind: 'datasource' | 'action') => ({
    params: {
      type: 'object',
      required: ['solution', kind],
      properties: {
        solution: { type: 'string', pattern: SOLUTION_NAME.source },
        [kind]: { type: 'string', minLength: 1, maxLength: 200 },
      },
    },
    body: { type: 'object', additionalProperties: false, properties: { context: { type: 'object' } } },
  });
  type Req = FastifyRequest<{ Params: { solution: string }; Body: { context?: Record<string, unknown> } }>;
  const preview = async (
    req: Req,
    reply: FastifyReply,
    kind: 'datasource' | 'action',
    name: string,
    signal?: AbortSignal,
  ) => {
    const { solution } = req.params;
    const release = ctx.slots.take(solution);
    const audited = auditor(ctx, req, `preview-${kind}`, solution, name);
    const correlationId = randomUUID();
    try {
      const context = {
        ...(req.body?.context ?? {}),
        user: { id: req.user.id, name: req.user.name, displayName: req.user.name },
      };
      const { value, version } =
        kind === 'datasource'
          ? await ctx.runtimes.sandboxed(solution, { kind, name, context }, req.user.id, signal)
          : await ctx.runtimes.run(solution, { kind, name, context });
      // Made here (a preview's rows are at most 8 MB): held and sized as every answer.
      const json = JSON.stringify({ ...(value as object), version });
      checkAnswerSize(json, ctx.maxAnswerMb, `the preview of ${kind} '${name}'`);
      const body = holdAnswer(ctx, req, reply, json);
      await audited('ok', correlationId);
      return reply.type(JSON_TYPE).send(body);
    } catch (error) {
      await audited(codeOf(error), withCorrelationId(error, correlationId), detailOf(error));
      throw error;
    } finally {
      release();
    }
  };
  app.post<{ Params: { solution: string; datasource: string }; Body: { context?: Record<string, unknown> } }>(
    '/solutions/:solution/datasources/:datasource/preview',
    { config: { permission: 'function.execute' }, schema: schema('datasource') },
    (req, reply) => preview(req, reply, 'datasource', req.params.datasource, abortOnHangUp(reply).signal),
  );
  app.post<{ Params: { solution: string; action: string }; Body: { context?: Record<string, unknown> } }>(
    '/solutions/:solution/actions/:action/preview',
    { config: { permission: 'function.execute' }, schema: schema('action') },
    (req, reply) => preview(req, reply, 'action', req.params.action),
  );
}

/**
 * The call step alone, for a device that runs everything else itself (`restfn run/sync/action
 * --server`): its parameter values in; the response, credentials masked, out.
 */
export function callRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  app.post<{ Params: Params; Body: CallBody }>(
    '/solutions/:solution/functions/:function/call',
    {
      config: { permission: 'function.execute' },
      bodyLimit: CALL_BODY_LIMIT,
      preParsing: reserveBody(ctx),
      schema: {
        params: FUNCTION_PARAMS,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            values: { type: 'object' },
            continuation: {
              type: 'object',
              additionalProperties: false,
              properties: { url: { type: 'string' } },
            },
            context: {
              type: 'object',
              additionalProperties: false,
              properties: { entity: { type: 'string' }, commandId: { type: 'string', maxLength: 200 } },
            },
            correlationId: { type: 'string', maxLength: 100 },
          },
        },
      },
    },
    async (req, reply) => {
      const release = ctx.slots.take(req.params.solution);
      try {
        return await call(req, reply);
      } finally {
        release();
      }
    },
  );

  async function call(req: FastifyRequest<{ Params: Params; Body: CallBody }>, reply: FastifyReply) {
    const { solution, function: name } = req.params;
    const controller = abortOnHangUp(reply);
    const audited = auditor(ctx, req, 'call', solution, name);
    const continuation = req.body?.continuation;
    try {
      const { value } = await ctx.runtimes.run(
        solution,
        {
          kind: 'call',
          name,
          values: req.body?.values ?? {},
          ...(continuation ? { continuation: { url: continuation.url } } : {}),
          ...(req.body?.context ? { context: req.body.context } : {}),
          ...(req.body?.correlationId ? { correlationId: req.body.correlationId } : {}),
          user: { id: req.user.id, name: req.user.name, displayName: req.user.name },
        },
        { signal: controller },
      );
      // The response as JSON text with its version, made (and sized) in the worker.
      const answer = value as CallAnswer;
      if (typeof answer?.json !== 'string' || typeof answer.correlationId !== 'string')
        throw new RestfnError('INTERNAL', 'the platform failed unexpectedly; the server log has the details');
      const body = holdAnswer(ctx, req, reply, answer.json);
      await audited('ok', answer.correlationId);
      return reply.type(JSON_TYPE).send(body);
    } catch (error) {
      const correlationId = withCorrelationId(error, req.body?.correlationId ?? randomUUID());
      await audited(codeOf(error), correlationId, detailOf(error));
      withConnectUrl(ctx, solution, error);
      throw error;
    }
  }
}

/**
 * Before a large body is read (an execute or call with files), its size is reserved from the
 * platform's budget of bytes held (`HeldBudget`), given back when the answer is sent or the caller goes
 * away. A body without a length (chunked) reserves the most it may be.
 */
function reserveBody(ctx: PlatformContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const length = req.headers['content-length'];
    const bytes =
      length !== undefined ? Number(length) : req.headers['transfer-encoding'] ? CALL_BODY_LIMIT : 0;
    const release = ctx.held.take(req.user.id, Math.min(bytes, CALL_BODY_LIMIT), 'request');
    reply.raw.once('close', release);
  };
}

/**
 * How long an answer may wait for its client to take a byte of it: a client that stopped reading
 * gives its share of the budget back when its connection is closed. (Node's socket timeout looks
 * at the write queue when it expires and waits again if it moved: 30 to 60 s in all.)
 */
const ANSWER_IDLE_MS = 30_000;

const HELD = Symbol('answer held');
interface HeldAnswer {
  readonly budget: HeldBudget;
  readonly user: string;
  readonly bytes: number;
}
type Holding = ServerResponse & { [HELD]?: HeldAnswer };

/**
 * Holds an answer's text (`HeldBudget`, counted by its length, whatever its size) from now until
 * the response is closed: after `finish` (the socket has written it out) or when its connection
 * closed, queued behind another or not (pipelining.ts closes those Node does not); past the user's
 * or the platform's budget this throws (429, 503) and the text is dropped with the request. Any
 * answer whose client takes nothing of it for `ANSWER_IDLE_MS` has its connection closed: an
 * answer of 1 MB does not fit the kernel's buffers of a client that reads nothing, and pipelined
 * answers wait in memory behind it. Kept without a closure: this runs for every execution.
 */
function holdAnswer(
  ctx: PlatformContext,
  req: FastifyRequest,
  reply: FastifyReply,
  json: string,
): string | Buffer {
  // What waits is what is written: a large answer is sent as its UTF-8 bytes, made once here, and
  // those are counted (its text, two bytes a character in V8 when it is not Latin-1, is dropped with
  // the request's handler; counting the text's length undercounted a non-ASCII answer several times).
  const body = json.length > BUFFERED_FROM ? Buffer.from(json, 'utf8') : json;
  const bytes = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  ctx.held.reserve(req.user.id, bytes, 'answer');
  const res = reply.raw as Holding;
  // The client may have gone while the answer was being made: nothing will be written.
  if (res.closed) {
    ctx.held.giveBack(req.user.id, bytes);
    return body;
  }
  res[HELD] = { budget: ctx.held, user: req.user.id, bytes };
  res.on('close', giveBackAnswer);
  // On the socket itself: an answer queued behind another has none of its own yet. No listener:
  // Node's server closes a socket whose timeout fires.
  req.raw.socket.setTimeout(ANSWER_IDLE_MS);
  return body;
}

/** Answers longer than this (characters) are sent as bytes made once (see `holdAnswer`). */
const BUFFERED_FROM = 64 * 1024;

function giveBackAnswer(this: Holding): void {
  const held = this[HELD];
  if (held === undefined) return;
  this[HELD] = undefined;
  held.budget.giveBack(held.user, held.bytes);
}

/**
 * Fires when the caller goes away before its answer was written, so the execution (and its
 * retries) stops instead of running on. A light `Abort` (an AbortController with its listeners cost
 * ~8 µs of every execution on the request thread); its `signal` is a real AbortSignal, made for
 * what needs one.
 */
function abortOnHangUp(reply: FastifyReply): Abort {
  const hungUp = new Abort();
  // Gone already: a pipelined request whose connection was closed while its body was read.
  if (reply.raw.closed) {
    hungUp.abort();
    return hungUp;
  }
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) hungUp.abort();
  });
  return hungUp;
}

type Audited = (outcome: string, correlationId: string | null, detail?: string | null) => Promise<void>;

/** Writes the audit row of one execution or call, timed from when this is made. */
function auditor(
  ctx: PlatformContext,
  req: FastifyRequest,
  action: 'execute' | 'call' | 'preview-datasource' | 'preview-action',
  solution: string,
  target: string,
): Audited {
  const started = Date.now();
  const kind =
    action === 'preview-datasource' ? 'datasource' : action === 'preview-action' ? 'action' : 'function';
  return async (outcome, correlationId, detail) => {
    const durationMs = Date.now() - started;
    // The labels are what the published version names: a name the caller made up is no series.
    const labels = await executionLabels(ctx.runtimes, solution, kind, target);
    ctx.metrics.executed(labels.solution, labels.target, outcome, durationMs / 1000);
    return ctx.audit(req, {
      solution,
      action,
      target,
      outcome,
      correlationId,
      durationMs,
      detail: detail ?? null,
    });
  };
}

/**
 * `"pages": true`: one JSON line per page (`{"page": n, "output": ...}`) as it arrives, waiting for
 * the client to read when its buffer is full (the worker fetches the next page only then), so a
 * large pull never sits in the server's memory; then one last line, `{"status": "ok", "pages": n,
 * "stopped": ...}` or the error.
 */
async function streamPages(
  ctx: PlatformContext,
  req: FastifyRequest,
  reply: FastifyReply,
  run: {
    solution: string;
    name: string;
    parameters: Record<string, unknown>;
    context: Record<string, unknown>;
    signal: AbortSignal;
    audited: Audited;
    /** Each page line says its last request's method and url (`sent`). */
    sent: boolean;
  },
): Promise<void> {
  const out = reply.raw;
  let started = false;
  /** A page refused here (the budget): the stream ends with this error, not the worker's abort. */
  let refused: unknown;
  const line = async (text: string) => {
    // Each line is held until written (at most one at a time: the next page waits for it).
    const release = ctx.held.take(req.user.id, text.length, 'answer');
    if (!started) {
      // The stream starts with its first line: a refusal before it (not published, a credential
      // value given) is an ordinary error answer.
      started = true;
      reply.hijack();
      // Written by hand, past fastify's reply: with the headers the reply holds (security headers).
      out.writeHead(200, {
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        'content-type': 'application/x-ndjson; charset=utf-8',
        'cache-control': 'no-store',
      });
    }
    try {
      if (out.write(`${text}\n`)) return;
      // A client that takes nothing of a line for a while has its connection closed (on the
      // socket: a stream queued behind a pipelined answer has none of its own yet).
      req.raw.socket.setTimeout(ANSWER_IDLE_MS);
      await once(out, 'drain', { signal: run.signal });
      req.raw.socket.setTimeout(0);
    } finally {
      release();
    }
  };
  const page = (json: string) =>
    line(json).catch((error: unknown) => {
      refused = error;
      throw error;
    });
  let correlationId: string | null = null;
  try {
    const { value } = await ctx.runtimes.run(
      run.solution,
      {
        kind: 'pages',
        name: run.name,
        parameters: run.parameters,
        context: run.context,
        ...(run.sent ? { sent: true } : {}),
      },
      { signal: run.signal, onPage: (_page, json) => page(json) },
    );
    const done = value as { pages: number; stopped: string; correlationId: string | null };
    correlationId = done.correlationId;
    await line(JSON.stringify({ status: 'ok', pages: done.pages, stopped: done.stopped, correlationId }));
    await run.audited('ok', correlationId);
  } catch (thrown) {
    const error = refused ?? thrown;
    correlationId = withCorrelationId(error, correlationId ?? randomUUID());
    await run.audited(codeOf(error), correlationId);
    withConnectUrl(ctx, run.solution, error);
    if (!started) throw error;
    if (!out.destroyed) {
      const coded =
        error instanceof RestfnError
          ? error
          : new RestfnError('INTERNAL', 'the platform failed unexpectedly');
      if (!(error instanceof RestfnError))
        req.log.error({ err: error }, 'unexpected error while streaming pages');
      const { sent } = coded as { sent?: unknown };
      await line(JSON.stringify({ ...errorBody(coded), ...(sent ? { sent } : {}) })).catch(() => undefined);
    }
  } finally {
    if (started) out.end();
  }
}

/** What the audit keeps of a failure: its masked texts (as the caller got them), never a value. */
function detailOf(error: unknown): string | null {
  if (!(error instanceof RestfnError)) return null;
  const e = error as RestfnError & { title?: string; description?: string; status?: number };
  return JSON.stringify({
    message: e.message,
    ...(e.title !== undefined ? { title: e.title } : {}),
    ...(e.description !== undefined ? { description: e.description } : {}),
    ...(typeof e.status === 'number' ? { remoteStatus: e.status } : {}),
  });
}

function codeOf(error: unknown): string {
  return error instanceof RestfnError ? error.code : 'INTERNAL';
}

/**
 * The error's correlation id; one is given to a coded error found before any call (a parameter,
 * credential or definition problem), so the answer and the audit entry name the same execution.
 */
function withCorrelationId(error: unknown, id: string): string | null {
  if (!(error instanceof RestfnError)) return null;
  const held = (error as { correlationId?: string }).correlationId;
  if (held !== undefined) return held;
  Object.defineProperty(error, 'correlationId', { value: id, writable: true, configurable: true });
  return id;
}

/**
 * A per-user credential the caller has not connected (or whose refresh the provider refused): the
 * answer carries where to connect, so an app can send its user there.
 */
function withConnectUrl(ctx: PlatformContext, solution: string, error: unknown): void {
  if (!(error instanceof RestfnError) || error.code !== 'CONNECTION_REQUIRED') return;
  const key = (error as { credential?: unknown }).credential;
  if (typeof key !== 'string') return;
  const held = (error as { extra?: Record<string, unknown> }).extra;
  const connectUrl = `${ctx.publicUrl()}/api/v1/solutions/${encodeURIComponent(solution)}/credentials/${encodeURIComponent(key)}/connect`;
  Object.defineProperty(error, 'extra', {
    value: { ...held, connectUrl },
    configurable: true,
    enumerable: true,
  });
}
