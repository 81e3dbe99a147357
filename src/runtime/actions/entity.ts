import {
  type ExecuteEntitiesAction,
  type ExecuteEntityAction,
  LOCAL_PROVIDER,
  type SubmitFormAction,
} from '../../definition/schema/index.js';
import type { PropertyPath } from '../../definition/yaml-file.js';
import { UsageError } from '../../errors/restfn-error.js';
import { isTempId } from '../../expression/functions.js';
import { type CommandType, mayHaveReachedService } from '../../local/command-queue.js';
import { newTempId } from '../../local/temp-ids.js';
import { randomUUID } from '../../portable/random.js';
import type { ExecutionContext } from '../context.js';
import { ParameterError } from '../errors.js';
import { coerce } from '../parameters.js';
import { pushQueue, type QueueEngine } from '../push.js';
import { contextSnapshot, definitionHash } from './command-source.js';
import { dropCommand } from './queue.js';
import { type Evaluator, idOf, values } from './step-context.js';
import type { ActionCommand, ActionOptions, ActionResult } from './types.js';

type RecordAction = ExecuteEntityAction | ExecuteEntitiesAction | SubmitFormAction;

/** One record's change, decided before anything is written. */
interface Planned {
  readonly id: string | undefined;
  readonly tempId: string | undefined;
  readonly row: Record<string, unknown> | null;
  readonly record: string | null;
  readonly parameters: Record<string, unknown>;
  /** What the parameters were evaluated with. */
  readonly context: Record<string, unknown> | undefined;
  readonly queueOperation: 'add' | 'replace';
  readonly commandId: string;
}

/** `execute-entity`: one record. `submit-form`: the same, with the form's values as the record. */
export async function executeEntity(
  engine: QueueEngine,
  name: string,
  step: ExecuteEntityAction | SubmitFormAction,
  ev: Evaluator,
  options: ActionOptions,
  at: PropertyPath,
): Promise<ActionResult> {
  const o = step.options;
  // Older files put both the row's values and the function's parameters in functionParameters.
  const [dataRaw, dataPath] =
    o.data !== undefined
      ? [o.data, ['options', 'data']]
      : step.type === 'action.submit-form'
        ? [undefined, ['options', 'formId']]
        : [o.functionParameters, ['options', 'functionParameters']];
  const data =
    dataRaw === undefined && step.type === 'action.submit-form'
      ? formValues(ev.ctx, step.options.formId, name)
      : await values(dataRaw, dataPath, ev);
  const parametersOf = () => parametersWithContext(step, ev);
  const [result] = await applyRecords(engine, name, step, ev, [{ data, parametersOf }], options, at);
  return result!;
}

/** `execute-entities`: each record of `data`, in order, in one transaction and one push. */
export async function executeEntities(
  engine: QueueEngine,
  name: string,
  step: ExecuteEntitiesAction,
  ev: Evaluator,
  options: ActionOptions,
  at: PropertyPath,
): Promise<ActionResult> {
  const o = step.options;
  const given = Array.isArray(o.data)
    ? await Promise.all(o.data.map((r, i) => values(r, ['options', 'data', i], ev)))
    : await ev.field(['options', 'data'], o.data);
  const list = Array.isArray(given) ? given : given === undefined || given === null ? [] : [given];
  const records = list.map((r, i) => {
    if (typeof r !== 'object' || r === null || Array.isArray(r))
      throw ev.fail(
        ['options', 'data'],
        `options.data[${i}] must be a record (a map), got ${JSON.stringify(r)}`,
      );
    return r as Record<string, unknown>;
  });
  const outer = ev.ctx.current as Record<string, unknown> | undefined;
  const inputs = records.map((record) => ({
    data: { ...record },
    // The record is @ctx.current.item while its parameters are read; its own values go too.
    parametersOf: async () => {
      ev.ctx.current = { ...outer, item: record };
      try {
        return await parametersWithContext(step, ev);
      } finally {
        ev.ctx.current = outer;
      }
    },
  }));
  const results = await applyRecords(engine, name, step, ev, inputs, options, at);
  const push = results.find((r) => r.push)?.push;
  return {
    action: name,
    type: step.type,
    method: o.method,
    entity: o.entity,
    steps: results.map(({ push: _, ...r }) => r),
    ...(push ? { push } : {}),
  };
}

/**
 * The function's parameters of a record step, evaluated against `ev.ctx` as it is (its record, and
 * for execute-entities the record as `current.item`). The queued command is built with it, and
 * rebuilt with it from the current files (`restfn queue retry --rebuild`, command-source.ts).
 */
export async function stepParameters(step: RecordAction, ev: Evaluator): Promise<Record<string, unknown>> {
  const o = step.options;
  if (step.type === 'action.execute-entities') {
    const raw = o.functionParameters ?? o.parameters;
    const path = o.functionParameters ? ['options', 'functionParameters'] : ['options', 'parameters'];
    const item = (ev.ctx.current as { item?: Record<string, unknown> } | undefined)?.item;
    return { ...item, ...(await values(raw, path, ev)) };
  }
  const raw = o.parameters ?? o.functionParameters;
  // A form's values go to the function as they are, when the action names no parameters.
  if (raw === undefined && step.type === 'action.submit-form')
    return { ...(ev.ctx.record as Record<string, unknown>) };
  return values(raw, o.parameters ? ['options', 'parameters'] : ['options', 'functionParameters'], ev);
}

/** The parameters, and what they were evaluated with (kept with the command, to rebuild it). */
async function parametersWithContext(step: RecordAction, ev: Evaluator): Promise<Evaluated> {
  return { parameters: await stepParameters(step, ev), context: contextSnapshot(ev.ctx) };
}

interface Evaluated {
  readonly parameters: Record<string, unknown>;
  readonly context: Record<string, unknown>;
}

/** `@ctx.components.<formId>.state.data`: what the form holds. */
function formValues(ctx: ExecutionContext, formId: string, name: string): Record<string, unknown> {
  const form = (ctx.components as Record<string, { state?: { data?: unknown } }> | undefined)?.[formId];
  const data = form?.state?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError(
      `action '${name}' submits form '${formId}', but the screen gave no values for it (components.${formId}.state.data); from the CLI pass them, for example -p components.${formId}.state.data.name=Ada, or write options.data`,
      'ACTION_RECORD_ID',
    );
  }
  return { ...(data as Record<string, unknown>) };
}

interface RecordInput {
  readonly data: Record<string, unknown>;
  readonly parametersOf: () => Promise<Evaluated>;
}

/**
 * Plans each record (reading the local rows), then writes every local change and its command in
 * one transaction (a crash or a refused record leaves all or none), then pushes once.
 */
async function applyRecords(
  engine: QueueEngine,
  name: string,
  step: RecordAction,
  ev: Evaluator,
  inputs: readonly RecordInput[],
  options: ActionOptions,
  at: PropertyPath,
): Promise<ActionResult[]> {
  const { store, queue } = engine;
  const o = step.options;
  const entity = o.entity;
  ev.ctx.entity = entity;
  const local = o.provider === LOCAL_PROVIDER;
  const fn = local ? undefined : o.function;
  const queueOperation = await queueOperationOf(o.queueOperation, ev);
  const table = store.ensureTable(entity);
  const read = (id: string) => {
    const row = store.db.prepare(`SELECT data FROM ${table} WHERE id = ?`).get(id) as
      | { data: string }
      | undefined;
    return row && (JSON.parse(row.data) as Record<string, unknown>);
  };

  const planned: Planned[] = [];
  for (const input of inputs) {
    const data = typed(engine, name, fn, input.data);
    let evaluated: Evaluated | undefined;
    const parametersNow = async () => {
      evaluated ??= await input.parametersOf();
      return evaluated.parameters;
    };
    // The record: a created one gets a temporary id unless the screen gave one; the others name
    // theirs in data.id (else parameters.id).
    let id = idOf(data.id);
    if (id === undefined && o.method !== 'create' && o.method !== 'save' && o.method !== 'functionCall')
      id = idOf((await parametersNow()).id);
    if (id === undefined && (o.method === 'update' || o.method === 'delete')) {
      throw new UsageError(
        `action '${name}' (${o.method}) needs the record's id: its options.data.id (for example =@ctx.current.item.id) gave none; from the CLI pass the screen's item, for example -p current.item.id=c-7`,
        'ACTION_RECORD_ID',
      );
    }
    const existing = id === undefined ? undefined : read(id);
    if ((o.method === 'update' || o.method === 'delete') && existing === undefined) {
      throw new UsageError(
        `action '${name}': no record '${id}' in table '${entity}' to ${o.method}${o.method === 'update' ? '; use method: save to create it when missing' : " (sync the table first: 'restfn sync')"}`,
        'RECORD_NOT_FOUND',
      );
    }
    if (o.method === 'create' && existing !== undefined) {
      throw new UsageError(
        `action '${name}': table '${entity}' has a record '${id}' already, so a create would overwrite it; use method: save (create or update) or update`,
        'RECORD_EXISTS',
      );
    }
    let tempId: string | undefined;
    if (id === undefined && o.method !== 'functionCall') {
      id = newTempId();
      tempId = id;
    }
    // A field the screen left empty (undefined) keeps the row's value: only given values change it.
    const given = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined));
    const row =
      o.method === 'functionCall' || o.method === 'delete'
        ? null
        : { ...existing, ...given, id: data.id ?? id };
    ev.ctx.record = row ?? existing ?? null;
    planned.push({
      id,
      tempId,
      row,
      record: o.method === 'functionCall' ? null : (id ?? null),
      parameters: fn === undefined ? {} : await parametersNow(),
      context: evaluated?.context,
      queueOperation,
      commandId: randomUUID(),
    });
  }

  // The local changes and their commands, together: a crash leaves all or none.
  const queued = planned.map(() => fn !== undefined);
  const hash = fn === undefined ? undefined : definitionHash(engine.solution, name, fn);
  store.db.transaction(() => {
    for (const [i, p] of planned.entries()) {
      if (p.row) {
        store.db
          .prepare(
            `INSERT INTO ${table} (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data`,
          )
          .run(p.id, JSON.stringify(p.row));
      } else if (o.method === 'delete') {
        store.db.prepare(`DELETE FROM ${table} WHERE id = ?`).run(p.id);
        // A record that only ever existed here: nothing to delete remotely, and its queued changes go.
        // Once its create may have reached the service (an answer can be lost on the way back), the
        // delete queues behind the create instead and gets the real id with it.
        const commands = queue.forRecord(entity, p.id!);
        if (isTempId(p.id) && !commands.some(mayHaveReachedService)) {
          for (const c of commands) dropCommand(engine, c);
          queued[i] = false;
        }
      }
      if (!queued[i]) continue;
      if (p.queueOperation === 'replace' && p.record !== null) queue.dropReplaceable(entity, p.record, fn!);
      queue.add({
        id: p.commandId,
        type: o.method as CommandType,
        entity,
        record: p.record,
        function: fn!,
        payload: {
          parameters: p.parameters,
          ...(p.tempId ? { tempId: p.tempId } : {}),
          // Which definition built it, and from what: `queue list` says when the files changed since,
          // and `queue retry --rebuild` builds it again from them.
          ...(hash !== undefined && p.context !== undefined
            ? { source: { action: name, at: [...at], hash, context: p.context } }
            : {}),
        },
      });
    }
  })();

  const base = { action: name, type: step.type, method: o.method, entity } as const;
  const push = queued.some(Boolean) && options.push !== false ? await pushQueue(engine, options) : undefined;
  return planned.map((p, i): ActionResult => {
    if (!queued[i] || !push) {
      const row = p.record === null ? null : (read(p.record) ?? null);
      return {
        ...base,
        ...(p.record === null ? {} : { record: p.record }),
        row,
        ...(queued[i] ? { command: { id: p.commandId, state: 'queued' } } : {}),
      };
    }
    const outcome = push.outcomes.find((c) => c.id === p.commandId);
    const command: ActionCommand = outcome
      ? {
          id: p.commandId,
          state: outcome.state,
          ...(outcome.error ? { error: outcome.error } : {}),
          ...(outcome.state === 'done' ? { output: outcome.output } : {}),
        }
      : { id: p.commandId, state: queue.get(p.commandId)?.state === 'waiting' ? 'waiting' : 'queued' };
    const record = outcome?.record ?? p.record;
    return {
      ...base,
      ...(record === null ? {} : { record }),
      row: record === null ? null : (read(record) ?? null),
      command,
      push,
    };
  });
}

/** `queueOperation`: add, replace, or an expression giving one (`=$isTempId(...) ? 'replace' : 'add'`). */
async function queueOperationOf(raw: string | undefined, ev: Evaluator): Promise<'add' | 'replace'> {
  if (raw === undefined) return 'add';
  const value = await ev.field(['options', 'queueOperation'], raw);
  if (value === 'add' || value === 'replace') return value;
  throw ev.fail(
    ['options', 'queueOperation'],
    `queueOperation must give add or replace, got ${JSON.stringify(value) ?? 'nothing'}`,
  );
}

const TYPED = new Set(['number', 'int', 'integer', 'boolean', 'array', 'object']);

/**
 * The local row's values typed as the function's parameters of the same name declare them: a
 * screen's text field (or a CLI `-p`) gives "9" where the service will store 9, and the row should
 * read as it will after the next sync. A value that cannot be coerced fails the action before
 * anything is written, as sending it would.
 */
function typed(
  engine: QueueEngine,
  action: string,
  fn: string | undefined,
  data: Record<string, unknown>,
): Record<string, unknown> {
  const declared = fn === undefined ? undefined : engine.solution.functions.get(fn)?.definition?.parameters;
  if (!declared) return data;
  for (const [key, value] of Object.entries(data)) {
    const type = declared[key]?.type;
    // The record's id is its identity, kept as given (`0x10` is not record 16).
    if (key === 'id' || typeof value !== 'string' || type === undefined || !TYPED.has(type)) continue;
    try {
      data[key] = coerce(key, type, value);
    } catch (error) {
      if (error instanceof ParameterError)
        error.message = `action '${action}': data.${key} is '${value}', but ${error.message.replace(/^parameter/, `function '${fn}' parameter`)}`;
      throw error;
    }
  }
  return data;
}
