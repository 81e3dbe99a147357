import { printable } from '../errors/printable.js';
import type { AbortLike } from '../http/abort.js';
import { originOf } from '../http/build-request.js';
import { CallError, TargetRefusedError } from '../http/errors.js';
import { requestBudget } from '../http/request-budget.js';
import { randomUUID } from '../portable/random.js';
import { callWithRetries, type SecretCollector } from './call.js';
import { createContext, type ExecutionContext } from './context.js';
import type { Engine, FunctionFile, RemoteResponse } from './engine.js';
import { type Field, fieldsOf } from './field.js';
import { maskJson } from './mask.js';
import { resolveParameters } from './parameters.js';
import { functionFile } from './pipeline.js';
import { type FunctionPlan, parametersPlan, placeholderNames, planOf } from './plan.js';
import { parameterInput } from './transform-input.js';

/**
 * The call step alone, for a device that did the rest (the platform's side of `RemoteCalls`): the
 * device's parameter values, the credentials from here, the inputTransform, the request, the error
 * handlers and retries. The response comes back with every credential value masked. Parameters the
 * device did not send get their defaults here (credential parameters: their key).
 */
export async function callStep(
  engine: Engine,
  name: string,
  values: Readonly<Record<string, unknown>>,
  options: {
    readonly continuation?: { readonly url: string | undefined };
    /** `entity` and `commandId` (its idempotency key) of a queued command. */
    readonly context?: { readonly entity?: string; readonly commandId?: string };
    /** The caller's id for this call (a device's), so both sides name it alike. */
    readonly correlationId?: string;
    /** `@ctx.user` of the call (the platform: the calling user, whose connection a per-user credential uses). */
    readonly user?: Record<string, unknown>;
    readonly signal?: AbortLike;
    /** Told every credential text the call uses. */
    readonly collect?: SecretCollector;
  },
): Promise<RemoteResponse & { readonly correlationId: string }> {
  const file = functionFile(engine.solution, name);
  const definition = file.definition;
  const plan = planOf(definition);
  const ctx = createContext(
    engine.solution,
    options.correlationId ?? randomUUID(),
    options.user ? { ...engine.options, user: options.user } : engine.options,
    options.context ?? {},
  );
  const field = fieldsOf(file, ctx, engine.expressions);
  const continuation = options.continuation;
  const declared = continuation ? parametersPlan(definition.continuation?.parameters) : plan.parameters;
  const inUrl = continuation?.url === undefined ? plan.inUrl : placeholderNames(continuation.url);
  const path = continuation ? ['continuation', 'parameters'] : ['parameters'];
  const pending = resolveParameters(
    declared.list,
    values,
    (param, raw, soFar) => {
      ctx.parameters = { ...values, ...soFar };
      return field([...path, param, 'value'], raw, ctx);
    },
    inUrl,
  );
  const parameters = pending instanceof Promise ? await pending : pending;
  ctx.parameters = Object.fromEntries(parameters.map((p) => [p.name, p.value]));
  if (continuation?.url !== undefined)
    await checkContinuation(definition, plan, continuation.url, ctx, field);
  const inputTransform = definition.inputTransform;
  const called = callWithRetries({
    engine,
    file,
    ctx,
    field,
    parameters,
    transform:
      inputTransform === undefined
        ? undefined
        : (v) => field(['inputTransform'], inputTransform, parameterInput(v), true),
    page: continuation
      ? { url: continuation.url, parameters: definition.continuation?.parameters ?? {}, previous: ctx }
      : undefined,
    signal: options.signal,
    plan,
    writeErrorTables: undefined,
    collect: options.collect,
    // A `/call` step is one execution: its own budget of requests.
    budget: requestBudget(engine.options.maxRequestsPerExecution),
  });
  const { raw, parsed, secrets } = await called.catch((error: unknown) => {
    if (error instanceof CallError) error.correlationId = ctx.correlationId;
    throw error;
  });
  return {
    status: raw.status,
    statusText: raw.statusText,
    headers: maskJson(ctx.response?.headers ?? raw.headers, secrets) as Record<string, string>,
    body: maskJson(parsed, secrets),
    correlationId: ctx.correlationId,
  };
}

/**
 * A next link that comes from the caller (a device computed it from the previous page) could name
 * any address, and the continuation's credentials would go there: it must have the origin the
 * function itself calls, as a redirect of a request with credentials must. The function's own
 * address is built as for a first page (a url expression evaluated; base placeholders filled from
 * the parameters, else the function's fixed defaults).
 */
async function checkContinuation(
  definition: FunctionFile['definition'],
  plan: FunctionPlan,
  url: string,
  ctx: ExecutionContext,
  field: Field,
): Promise<void> {
  const values: Record<string, unknown> = {};
  for (const p of plan.parameters.list)
    if (p.literal && p.definition.value !== undefined) values[p.name] = p.definition.value;
  Object.assign(values, ctx.parameters);
  const own = originOf(
    plan.urlIsExpression ? String(await field(['url'], definition.url, ctx)) : definition.url,
    values,
  );
  const next = originOf(url, values);
  if (own !== undefined && own === next) return;
  const error = new TargetRefusedError(
    { method: definition.method, url: printable(url) },
    own === undefined
      ? "a continuation page goes only to the origin the function calls, and that origin cannot be told without the parameters that fill the url's host"
      : `a continuation page goes only to the origin the function calls (${own}), not to ${next ?? 'an address without one'}`,
  );
  error.correlationId = ctx.correlationId;
  throw error;
}
