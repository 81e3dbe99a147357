import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusOf } from '../../errors/codes.js';
import { RestfnError } from '../../errors/restfn-error.js';
import type { ExecutionEvent } from '../../runtime/events.js';
import { functionFile } from '../../runtime/pipeline.js';
import { parametersPlan, planOf } from '../../runtime/plan.js';
import type { Runtime } from '../../runtime/runtime.js';
import { authorize } from '../auth/authorize.js';
import type { PlatformContext } from '../context.js';
import { errorBody, PlatformError } from '../errors.js';
import { SOLUTION_NAME } from '../publish.js';

interface ExecuteBody {
  readonly parameters?: Record<string, unknown>;
  /** What a screen would give (`current.item`, `components`, ...); `user` is the token's user. */
  readonly context?: Record<string, unknown>;
  /** Follow `continuation` and stream every page as NDJSON. */
  readonly pages?: boolean;
  /** Answer with the raw exchanges too (what was sent, what came back before `outputTransform`). */
  readonly trace?: boolean;
}

type Params = { solution: string; function: string };

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
    const { runtime, version } = await ctx.runtimes.get(solution);
    const parameters = req.body?.parameters ?? {};
    refuseCredentialValues(runtime, name, parameters, false);
    const context = { ...(req.body?.context ?? {}), user: { id: req.user.id, name: req.user.name } };
    if (req.body?.pages === true) {
      return streamPages(runtime, req, reply, {
        name,
        parameters,
        context,
        signal: controller.signal,
        audited,
      });
    }
    const correlationId = randomUUID();
    const trace = tracing ? traceOf(runtime, correlationId) : undefined;
    try {
      const result = await runtime.execute(name, parameters, context, {
        signal: controller.signal,
        correlationId,
      });
      await audited(result.status === 'ok' ? 'ok' : 'skipped', correlationId);
      const answer =
        result.status === 'ok'
          ? { status: 'ok', output: result.output, correlationId, version }
          : { status: 'skipped', reason: result.reason, correlationId, version };
      return trace ? { ...answer, trace: trace.exchanges } : answer;
    } catch (error) {
      // Errors found before the call (parameters, credentials) carry the execution's id too.
      await audited(codeOf(error), withCorrelationId(error, correlationId), detailOf(error));
      if (!trace || !(error instanceof RestfnError)) throw error;
      return reply.status(httpStatusOf(error.code)).send({ ...errorBody(error), trace: trace.exchanges });
    } finally {
      trace?.stop();
    }
  }
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
    const { runtime, version } = await ctx.runtimes.get(solution);
    const continuation = req.body?.continuation;
    refuseCredentialValues(runtime, name, req.body?.values ?? {}, continuation !== undefined);
    try {
      const response = await runtime.callStep(name, req.body?.values ?? {}, {
        ...(continuation ? { continuation: { url: continuation.url } } : {}),
        ...(req.body?.context ? { context: req.body.context } : {}),
        ...(req.body?.correlationId ? { correlationId: req.body.correlationId } : {}),
        signal: controller.signal,
      });
      await audited('ok', response.correlationId);
      return { ...response, version };
    } catch (error) {
      const correlationId = withCorrelationId(error, req.body?.correlationId ?? randomUUID());
      await audited(codeOf(error), correlationId, detailOf(error));
      throw error;
    }
  }
}

/** A caller that hangs up stops the execution (and its retries) instead of leaving it running. */
function abortOnHangUp(reply: FastifyReply): AbortController {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller;
}

type Audited = (outcome: string, correlationId: string | null, detail?: string | null) => Promise<void>;

/** Writes the audit row of one execution or call, timed from when this is made. */
function auditor(
  ctx: PlatformContext,
  req: FastifyRequest,
  action: 'execute' | 'call',
  solution: string,
  target: string,
): Audited {
  const started = Date.now();
  return (outcome, correlationId, detail) =>
    ctx.audit(req, {
      solution,
      action,
      target,
      outcome,
      correlationId,
      durationMs: Date.now() - started,
      detail: detail ?? null,
    });
}

/**
 * `"pages": true`: one JSON line per page (`{"page": n, "output": ...}`) as it arrives, waiting for
 * the client to read when its buffer is full, so a large pull never sits in the server's memory;
 * then one last line, `{"status": "ok", "pages": n, "stopped": ...}` or the error.
 */
async function streamPages(
  runtime: Runtime,
  req: FastifyRequest,
  reply: FastifyReply,
  run: {
    name: string;
    parameters: Record<string, unknown>;
    context: Record<string, unknown>;
    signal: AbortSignal;
    audited: Audited;
  },
): Promise<void> {
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
  const line = async (value: unknown) => {
    if (!out.write(`${JSON.stringify(value)}\n`)) await once(out, 'drain', { signal: run.signal });
  };
  let correlationId: string | null = null;
  try {
    const { pages, stopped } = await runtime.pages(
      run.name,
      run.parameters,
      run.context,
      async (result, page) => {
        correlationId ??= result.correlationId;
        await line(result.status === 'ok' ? { page, output: result.output } : { page, status: 'skipped' });
      },
      { signal: run.signal },
    );
    await line({ status: 'ok', pages, stopped, correlationId });
    await run.audited('ok', correlationId);
  } catch (error) {
    await run.audited(codeOf(error), withCorrelationId(error, correlationId ?? randomUUID()));
    if (!out.destroyed) {
      const coded =
        error instanceof RestfnError
          ? error
          : new RestfnError('INTERNAL', 'the platform failed unexpectedly');
      if (!(error instanceof RestfnError))
        req.log.error({ err: error }, 'unexpected error while streaming pages');
      await line(errorBody(coded)).catch(() => undefined);
    }
  } finally {
    out.end();
  }
}

type TraceEvent = Extract<ExecutionEvent, { type: 'request' | 'response' | 'retried' }>;

/**
 * The raw exchanges of one execution, as its events show them (headers and bodies with every
 * credential masked, bodies at most 64 KB, the response before `outputTransform`): one entry per
 * attempt, each retry saying why. Listening costs the runtime's other executions the building of
 * their events while it lasts, so only a preview asks for it.
 */
function traceOf(runtime: Runtime, correlationId: string) {
  const exchanges: Array<{
    request?: Omit<TraceEvent & { type: 'request' }, 'type' | 'correlationId' | 'function'>;
    response?: Omit<TraceEvent & { type: 'response' }, 'type' | 'correlationId' | 'function'>;
    retry?: { attempt: number; delayMs: number; reason: string };
  }> = [];
  const stop = runtime.on((event) => {
    if (event.correlationId !== correlationId) return;
    if (event.type === 'request') {
      const { type: _t, correlationId: _c, function: _f, ...request } = event;
      exchanges.push({ request });
    } else if (event.type === 'response') {
      const { type: _t, correlationId: _c, function: _f, ...response } = event;
      const last = exchanges.at(-1);
      if (last) last.response = response;
    } else if (event.type === 'retried') {
      const last = exchanges.at(-1);
      if (last) last.retry = { attempt: event.attempt, delayMs: event.delayMs, reason: event.reason };
    }
  });
  return { exchanges, stop };
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
 * A caller's value for a credential parameter would choose which of the solution's credentials
 * goes where (another service's key in this function's header): on the platform the key is the one
 * the function names. A device never sends these values (its `/call` leaves credentials out).
 */
function refuseCredentialValues(
  runtime: Runtime,
  name: string,
  given: Readonly<Record<string, unknown>>,
  continuation: boolean,
): void {
  const definition = functionFile(runtime.solution, name).definition;
  const declared = continuation
    ? parametersPlan(definition.continuation?.parameters)
    : planOf(definition).parameters;
  const named = declared.list.find((p) => p.credential !== undefined && Object.hasOwn(given, p.name));
  if (named) {
    throw new PlatformError(
      'REQUEST_INVALID',
      `parameter '${named.name}' is a credential: the platform uses the credential the function names, so leave it out`,
    );
  }
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
