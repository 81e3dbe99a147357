import type { Diagnostic } from '../definition/diagnostic.js';
import type { FunctionDefinition } from '../definition/schema/index.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import { didYouMean } from '../definition/suggest.js';
import { isErrorCode } from '../errors/codes.js';
import { DefinitionError } from '../errors/definition-error.js';
import { isTruthy } from '../expression/evaluate.js';
import type { AbortLike } from '../http/abort.js';
import { AbortedError, CallError } from '../http/errors.js';
import { type RequestBudget, RequestLimitError, requestBudget } from '../http/request-budget.js';
import type { RawResponse } from '../http/transport.js';
import type { FileStore } from '../local/files.js';
import { Stage, type StagedWrite } from '../local/stage.js';
import type { LocalStore } from '../local/store.js';
import { randomUUID } from '../portable/random.js';
import { remoteValue } from './body-files.js';
import { callWithRetries, type SecretCollector } from './call.js';
import type { ExecutionContext } from './context.js';
import { type CallContext, createContext } from './context.js';
import type { Engine, Execution, FunctionFile, PageRequest, RemoteCalls } from './engine.js';
import { FunctionNotFoundError, UnsupportedStepError } from './errors.js';
import { type Field, fieldsOf } from './field.js';
import { maskError } from './mask.js';
import { type ResolvedParameter, resolveParameters } from './parameters.js';
import { type ParameterPlan, parametersPlan, placeholderNames, planOf } from './plan.js';
import { runQueries } from './queries.js';
import { parameterInput, responseInput, unwrapResult } from './transform-input.js';

/** Guards that run functions with guards: deeper than this is a cycle (validation reports GUARD_CYCLE). */
const MAX_GUARD_DEPTH = 8;

/**
 * One function, one outbound call, in the spec's order (4.3). Table operations are not a step here:
 * they write the result into the local store, which the sync does with what this returns.
 */
export async function runFunction(
  engine: Engine,
  name: string,
  given: Readonly<Record<string, unknown>>,
  call: CallContext,
  options: {
    readonly signal?: AbortLike | undefined;
    /** A continuation page's request (paging). */
    readonly page?: PageRequest | undefined;
    /** How many guards led here (a guard's function has a guard...). */
    readonly guardDepth?: number;
    /** The caller's id for this execution; a fresh one when not given. */
    readonly correlationId?: string | undefined;
    /** Told every credential text the execution's calls use (the platform masks its answer with them). */
    readonly collect?: SecretCollector | undefined;
    /** The requests left to the execution a guard or a page runs for; a fresh budget when not given. */
    readonly budget?: RequestBudget | undefined;
  } = {},
): Promise<Execution> {
  const { signal, page, guardDepth = 0, collect } = options;
  // One budget per execution (its pages share it: paginate.ts), its guards' requests counted in it.
  const budget = options.budget ?? requestBudget(engine.options.maxRequestsPerExecution);
  const started = performance.now();
  const correlationId = options.correlationId ?? randomUUID();
  const { events } = engine;
  try {
    // 1. The function exists and is valid.
    const file = functionFile(engine.solution, name);
    const definition = file.definition;
    const plan = planOf(definition);
    const ctx = createContext(engine.solution, correlationId, engine.options, call);
    const field = fieldsOf(file, ctx, engine.expressions);
    const skip = (reason: string, guardFailed = false): Execution => {
      if (events.active) events.emit({ type: 'skipped', correlationId, function: name, reason });
      return { result: { status: 'skipped', reason, correlationId }, ctx, file, guardFailed };
    };

    // 2. Parameters: caller values, else defaults (which may read earlier parameters). A continuation
    // call replaces them with its own, whose expressions see the previous call's context. Defaults
    // that read @ctx.queries wait for step 3.
    if (page) Object.assign(ctx, { response: page.previous.response, output: page.previous.output });
    const parameterPath = page ? ['continuation', 'parameters'] : ['parameters'];
    const callerValues = page ? {} : given;
    const declared = page ? parametersPlan(page.parameters) : plan.parameters;
    const [early, late] = declared.readsQueries
      ? splitByQueryUse(declared.list, callerValues)
      : [declared.list];
    const parameters: ResolvedParameter[] = [];
    const inUrl = page?.url === undefined ? plan.inUrl : placeholderNames(page.url);
    const defaultValue = (param: string, raw: unknown, soFar: Record<string, unknown>) => {
      ctx.parameters = { ...(page ? page.previous.parameters : {}), ...valuesOf(parameters), ...soFar };
      return field([...parameterPath, param, 'value'], raw, ctx);
    };
    const resolved = (list: readonly ResolvedParameter[]) => {
      for (const p of list) parameters.push(p);
      ctx.parameters = { ...callerValues, ...valuesOf(parameters) };
    };
    const first = resolveParameters(early, callerValues, defaultValue, inUrl);
    resolved(first instanceof Promise ? await first : first);

    // 3. Queries (after their dependencies) read the local store; then the defaults that use them.
    if (definition.queries) {
      if (!engine.store) throw unsupported(name, 'queries', 'a local store');
      await runQueries(
        engine.store,
        definition.queries,
        ctx.queries,
        (path, raw) => field(path, raw, ctx),
        field.fail,
        page?.previous.queries,
      );
    }
    if (late && late.length > 0) {
      const more = resolveParameters(late, callerValues, defaultValue, inUrl);
      resolved(more instanceof Promise ? await more : more);
    }

    // 4. `when`: false skips the function (a result, not an error); re-evaluated on every page.
    if (definition.when !== undefined && !isTruthy(await field(['when'], definition.when, ctx))) {
      return skip('when is false');
    }

    // 5-6. Guard: its function runs first; when it fails or its `result` is falsy, the main
    // function is skipped (and the sync writes the guard's operations instead).
    const guard = definition.guard;
    if (guard && (page ? guard.onContinuation !== false : guard.onInitial !== false)) {
      const passed = await runGuard(engine, name, guard, ctx, field, call, {
        signal,
        guardDepth,
        collect,
        budget,
      });
      if (!passed) return skip('the guard did not pass', true);
    }

    // 8. inputTransform builds the body from the parameter values. It runs in each attempt, after
    // the credentials: a body credential reaches it as its value (a refreshed token on a retry).
    const inputTransform = definition.inputTransform;
    const transform =
      inputTransform === undefined
        ? undefined
        : (values: Record<string, unknown>) =>
            field(['inputTransform'], inputTransform, parameterInput(values), true);

    // The call, judged by the error handlers and retried as they or the defaults decide (spec 7).
    // Credentials are applied only now, after `when` (spec 4.3).
    const { raw, parsed, secrets } =
      engine.remote && definition.useLocalCall !== true
        ? await remoteCall(engine.remote, engine.files, name, parameters, ctx, page, signal)
        : await callWithRetries({
            engine,
            file,
            ctx,
            field,
            parameters,
            transform,
            page,
            signal,
            plan,
            writeErrorTables: engine.store ? errorTableWriter(engine.store) : undefined,
            collect,
            budget,
          });

    // outputTransform, then `output` (spec 2.1: the transform result, else the full response body).
    let output = parsed;
    try {
      if (definition.outputTransform !== undefined) {
        // The body itself when the transform cannot read the extras (`headers`, `status`, `inputs`)
        // of the copy `responseInput` makes: no copy of the response per call. (No body is still
        // the empty stand-in object.)
        const input =
          plan.outputReadsExtras || parsed === null || parsed === undefined
            ? responseInput(parsed, ctx.response!, ctx.parameters)
            : parsed;
        const result = await field(['outputTransform'], definition.outputTransform, input, true);
        output = unwrapResult(result, input, parsed);
      }
      ctx.output = output;
      if (definition.output !== undefined) output = await field(['output'], definition.output, output);
      ctx.output = output;
    } catch (error) {
      // A transform that failed on a value the service echoed may quote a credential (JSONata does).
      throw maskError(error, secrets);
    }

    const durationMs = performance.now() - started;
    if (events.active) events.emit({ type: 'succeeded', correlationId, function: name, durationMs });
    const result = {
      status: 'ok' as const,
      // On the platform the answer was scrubbed of echoed credentials before any transform ran.
      output,
      response: { status: raw.status, headers: raw.headers },
      correlationId,
      durationMs,
    };
    return { result, ctx, file, guardFailed: false, bytes: raw.bytes };
  } catch (error) {
    if (error instanceof CallError) error.correlationId = correlationId;
    if (events.active) {
      const given = (error as { code?: unknown }).code;
      const code = isErrorCode(given) ? given : 'ENGINE_ERROR';
      events.emit({ type: 'failed', correlationId, function: name, code, message: (error as Error).message });
    }
    throw error;
  }
}

/**
 * A guard of `name` (its `when` true, or none): runs the guard's function; whether it passed (it
 * succeeded and its `result`, if any, is truthy). A failed call is a guard that did not pass; an
 * abort (the caller's, or a deadline) and the request cap stop the whole run. Kept out of
 * `runFunction`, whose every call compiles and runs the common case only (issue 41).
 */
async function runGuard(
  engine: Engine,
  name: string,
  guard: NonNullable<FunctionDefinition['guard']>,
  ctx: ExecutionContext,
  field: Field,
  call: CallContext,
  options: {
    readonly signal: AbortLike | undefined;
    readonly guardDepth: number;
    readonly collect: SecretCollector | undefined;
    readonly budget: RequestBudget | undefined;
  },
): Promise<boolean> {
  if (guard.when !== undefined && !isTruthy(await field(['guard', 'when'], guard.when, ctx))) return true;
  const { signal, guardDepth, collect, budget } = options;
  const args: Record<string, unknown> = {};
  for (const [param, raw] of Object.entries(guard.parameters ?? {})) {
    args[param] = await field(['guard', 'parameters', param], raw, ctx);
  }
  try {
    if (guardDepth >= MAX_GUARD_DEPTH) {
      throw new DefinitionError(
        `guards call each other more than ${MAX_GUARD_DEPTH} deep from '${name}': a guard cycle`,
      );
    }
    const { result: outcome } = await runFunction(engine, guard.function, args, call, {
      signal,
      guardDepth: guardDepth + 1,
      collect,
      budget,
    });
    ctx.guard = { output: outcome.status === 'ok' ? outcome.output : null };
    return (
      outcome.status === 'ok' &&
      (guard.result === undefined || isTruthy(await field(['guard', 'result'], guard.result, ctx)))
    );
  } catch (error) {
    // An abort (the caller's, or a deadline) stops the whole run; it is no failed guard. Nor is
    // the request cap: the execution's requests are used up.
    if (!(error instanceof CallError) || error instanceof AbortedError || error instanceof RequestLimitError)
      throw error;
    ctx.guard = { output: null, error: { name: error.code, message: error.message } };
    return false;
  }
}

/** Parameters whose default reads @ctx.queries (and the caller did not set) resolve after the queries. */
function splitByQueryUse(
  plans: readonly ParameterPlan[],
  given: Readonly<Record<string, unknown>>,
): [ParameterPlan[], ParameterPlan[]] {
  const early: ParameterPlan[] = [];
  const late: ParameterPlan[] = [];
  for (const p of plans) (p.readsQueries && !Object.hasOwn(given, p.name) ? late : early).push(p);
  return [early, late];
}

function valuesOf(parameters: readonly ResolvedParameter[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const p of parameters) values[p.name] = p.value;
  return values;
}

/**
 * The call step on the platform: the resolved values of the parameters that are not credentials go
 * out, the masked response comes back and becomes `@ctx.response` for what follows here.
 */
async function remoteCall(
  remote: RemoteCalls,
  files: FileStore | undefined,
  name: string,
  parameters: readonly ResolvedParameter[],
  ctx: ExecutionContext,
  page: PageRequest | undefined,
  signal: AbortLike | undefined,
): Promise<{ raw: RawResponse; parsed: unknown; secrets: readonly string[] }> {
  const values: Record<string, unknown> = {};
  // The device's files go as bytes (data URIs): the platform reads no device's files.
  for (const p of parameters) {
    if (!p.credential) values[p.name] = p.location === 'body' ? remoteValue(p.value, files) : p.value;
  }
  const response = await remote.call({
    function: name,
    values,
    ...(page ? { continuation: { url: page.url } } : {}),
    context: {
      ...(typeof ctx.entity === 'string' ? { entity: ctx.entity } : {}),
      ...(typeof ctx.commandId === 'string' ? { commandId: ctx.commandId } : {}),
    },
    correlationId: ctx.correlationId,
    signal,
  });
  ctx.response = { ok: response.status < 400, ...response, headers: { ...response.headers } };
  const bytes = Buffer.from(JSON.stringify(response.body ?? null));
  return {
    raw: {
      status: response.status,
      statusText: response.statusText,
      headers: { ...response.headers },
      bytes,
    },
    parsed: response.body,
    secrets: [],
  };
}

export function functionFile(
  solution: Solution,
  name: string,
): SourceFile<'function'> & { definition: FunctionDefinition } {
  const file = solution.functions.get(name);
  if (!file) throw new FunctionNotFoundError(name, didYouMean(name, solution.functions.keys()));
  if (!file.definition) {
    const own: Diagnostic[] = solution.diagnostics.filter((d) => d.file === file.yaml.file);
    throw new DefinitionError(
      `function '${name}' is invalid (${file.yaml.file}); run 'restfn validate' for details`,
      own,
    );
  }
  return file as FunctionFile;
}

function unsupported(name: string, step: string, needs: string): UnsupportedStepError {
  return new UnsupportedStepError(
    `function '${name}' uses ${step}, which needs ${needs}; this runtime has none yet`,
  );
}

/** Error handlers' records go straight to the local tables (spec 7.3), one transaction each. */
function errorTableWriter(store: LocalStore): (writes: readonly StagedWrite[]) => void {
  return (writes) => Stage.apply(store, writes);
}
