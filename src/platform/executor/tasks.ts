import { contextPathsRead } from '../../definition/rules/context-paths.js';
import { entitiesOf } from '../../definition/schema/datasource.js';
import type { SourceFile } from '../../definition/solution.js';
import type { AbortLike } from '../../http/abort.js';
import type { SecretCollector } from '../../runtime/call.js';
import { originsNamingCredential } from '../../runtime/credential-origins.js';
import type { ExecutionEvent } from '../../runtime/events.js';
import { functionFile } from '../../runtime/pipeline.js';
import { parametersPlan, planOf } from '../../runtime/plan.js';
import type { Runtime } from '../../runtime/runtime.js';
import { customSettingRead } from '../../runtime/setting-default.js';
import { PlatformError } from '../errors.js';
import type { ActionInfo, DatasourceInfo, FunctionInfo, Task } from './protocol.js';

/**
 * What a worker does with one task on a solution's runtime (worker.ts routes the messages). Runs
 * in the worker: everything here reads or runs what the author wrote.
 */
export async function runTask(
  runtime: Runtime,
  task: Exclude<Task, { kind: 'validate' }>,
  signal: AbortLike,
  onPage: (page: number, result: unknown) => Promise<void>,
  /** Told every credential text the task's calls use: the worker masks the answer with them. */
  collect: SecretCollector,
): Promise<unknown> {
  switch (task.kind) {
    case 'describe':
      return describe(runtime);
    case 'origins':
      return originsNamingCredential(runtime.solution, task.key);
    case 'action':
      return runtime.previewAction(task.name, task.context);
    case 'datasource':
      return runtime.previewDatasource(task.name, { context: task.context, signal, collect });
    case 'execute': {
      refuseCredentialValues(runtime, task.name, task.parameters, false);
      const trace = task.trace || task.sent ? traceOf(runtime, task.correlationId) : undefined;
      // The raw exchanges for authors; for a `sent` answer, only the last request's method and url.
      const shown = () => {
        if (!trace) return {};
        if (task.trace) return { trace: trace.exchanges };
        const last = trace.exchanges.at(-1)?.request;
        return last ? { sent: { method: last.method, url: last.url } } : {};
      };
      try {
        const result = await runtime.execute(task.name, task.parameters, task.context, {
          signal,
          correlationId: task.correlationId,
          collect,
        });
        const answer =
          result.status === 'ok'
            ? { status: 'ok', output: result.output, correlationId: result.correlationId }
            : { status: 'skipped', reason: result.reason, correlationId: result.correlationId };
        return { ...answer, ...shown() };
      } catch (error) {
        // What was sent goes with the failure too: a preview shows what was sent and received.
        if (error instanceof Error) {
          for (const [name, value] of Object.entries(shown()))
            Object.defineProperty(error, name, { value, configurable: true });
        }
        throw error;
      } finally {
        trace?.stop();
      }
    }
    case 'pages': {
      refuseCredentialValues(runtime, task.name, task.parameters, false);
      let correlationId: string | undefined;
      // Each page says what it sent, as one preview does (`sent`): the console's "All pages" too.
      const requests = task.sent ? lastRequests(runtime, task.name) : undefined;
      const sentOf = (id: string | undefined) => {
        const sent = id === undefined ? undefined : requests?.take(id);
        return sent ? { sent } : {};
      };
      try {
        const done = await runtime.pages(
          task.name,
          task.parameters,
          task.context,
          async (result, page) => {
            correlationId ??= result.correlationId;
            const sent = sentOf(result.correlationId);
            await onPage(
              page,
              result.status === 'ok'
                ? { page, output: result.output, ...sent }
                : { page, status: 'skipped', ...sent },
            );
          },
          { signal, collect },
        );
        return { ...done, correlationId: correlationId ?? null };
      } catch (error) {
        // The page that failed: what it sent goes with the error, as for one preview.
        const id = (error as { correlationId?: unknown } | undefined)?.correlationId;
        const { sent } = sentOf(typeof id === 'string' ? id : undefined);
        if (sent && error instanceof Error)
          Object.defineProperty(error, 'sent', { value: sent, configurable: true });
        throw error;
      } finally {
        requests?.stop();
      }
    }
    case 'call': {
      refuseCredentialValues(runtime, task.name, task.values, task.continuation !== undefined);
      return runtime.callStep(task.name, task.values, {
        ...(task.continuation ? { continuation: task.continuation } : {}),
        ...(task.context ? { context: task.context } : {}),
        ...(task.correlationId ? { correlationId: task.correlationId } : {}),
        user: task.user,
        signal,
        collect,
      });
    }
  }
}

/** The functions of a version, as the console lists them, and the names of all. */
function describe(runtime: Runtime): {
  functions: FunctionInfo[];
  datasources: DatasourceInfo[];
  actions: ActionInfo[];
  names: string[];
} {
  const files = [...runtime.solution.functions.values()];
  const custom = runtime.solution.settings?.definition?.settings?.custom ?? {};
  const functions = files
    .filter((f) => f.definition?.provider === 'DATA_PROVIDER_REST')
    .map((f) => {
      const d = f.definition!;
      return {
        name: f.name,
        path: f.yaml.file,
        method: d.method,
        url: d.url,
        useLocalCall: d.useLocalCall === true,
        paged: d.continuation !== undefined,
        parameters: planOf(d).parameters.list.map((p) => ({
          name: p.name,
          location: p.definition.location,
          type: p.definition.type,
          required: p.definition.required === true,
          ...(p.definition.value !== undefined ? { value: p.definition.value } : {}),
          ...(p.credential ? {} : resolvedDefault(p.definition.value, custom)),
          // Which kind of credential, as the runtime reads it (`<provider>.oauth`, an accessToken...).
          ...(p.credential ? { credential: p.credential } : {}),
        })),
        source: f.yaml.text,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const datasources = runtime.solution.files
    .filter((f) => f.kind === 'datasource' && f.definition)
    .map((f) => ({
      name: f.name,
      entities: entitiesOf((f as SourceFile<'datasource'>).definition!).map((e) =>
        typeof e === 'string'
          ? { entity: e }
          : { entity: e.entity, ...(e.function ? { function: e.function } : {}) },
      ),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const actions = runtime.solution.files
    .filter((f) => f.kind === 'action' && f.definition)
    .map((f) => actionInfo(f as SourceFile<'action'>))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { functions, datasources, actions, names: files.map((f) => f.name).sort() };
}

/**
 * An expression default the console can show as a value (and fill into the url it says it sends
 * to): a `settings.custom` read, which solution.yaml gives every caller alike (its files are what
 * `solution.read` already shows). Anything else (a user's, a parameter's, a query's, a credential's
 * value) is left to the execution: the console shows the expression instead.
 */
function resolvedDefault(value: unknown, custom: Readonly<Record<string, unknown>>): { resolved?: unknown } {
  const setting = customSettingRead(value);
  if (setting === undefined || !Object.hasOwn(custom, setting)) return {};
  const resolved = custom[setting];
  return resolved === undefined || resolved === null ? {} : { resolved };
}

/** What a screen gives an action, as `@ctx` paths (the ones the runtime fills left out). */
function actionInfo(file: SourceFile<'action'>): ActionInfo {
  const d = file.definition!.action;
  const o =
    d.type === 'action.execute-entity' ||
    d.type === 'action.execute-entities' ||
    d.type === 'action.submit-form'
      ? d.options
      : undefined;
  const reads = [...(contextPathsRead(file.data) ?? [])]
    .filter((p) => ['current', 'components', 'jig'].includes(p.split('.')[0]!))
    .sort();
  return {
    name: file.name,
    type: d.type,
    ...(o ? { method: o.method, entity: o.entity, ...(o.function ? { function: o.function } : {}) } : {}),
    reads,
  };
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
 * The last request (method and url, credentials masked) of each execution of function `name` while
 * it listens, by correlation id: a paged preview's pages each have their own. Taken once; a few
 * kept at most (other callers' executions of the same function are never asked for).
 */
function lastRequests(runtime: Runtime, name: string) {
  const last = new Map<string, { method: string; url: string }>();
  const stop = runtime.on((event) => {
    if (event.type !== 'request' || event.function !== name) return;
    last.delete(event.correlationId);
    last.set(event.correlationId, { method: event.method, url: event.url });
    if (last.size > 32) last.delete(last.keys().next().value!);
  });
  const take = (correlationId: string) => {
    const request = last.get(correlationId);
    last.delete(correlationId);
    return request;
  };
  return { take, stop };
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
