import { randomUUID } from 'node:crypto';
import {
  type ActionDefinition,
  actionDefinition,
  type ExecuteEntityAction,
  QUEUE_ACTION_TYPES,
  type QueueAction,
} from '../definition/schema/index.js';
import type { SourceFile } from '../definition/solution.js';
import { didYouMean } from '../definition/suggest.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import { DefinitionError } from '../errors/definition-error.js';
import { UsageError } from '../errors/restfn-error.js';
import { isTempId } from '../expression/functions.js';
import {
  type Command,
  type CommandError,
  type CommandType,
  mayHaveReachedService,
} from '../local/command-queue.js';
import { newTempId } from '../local/temp-ids.js';
import { type CallContext, createContext, type ExecutionContext } from './context.js';
import { ParameterError } from './errors.js';
import { fieldsOf } from './field.js';
import { coerce } from './parameters.js';
import {
  errorTable,
  type PushOptions,
  type PushResult,
  pushQueue,
  type QueueEngine,
  removeErrorRow,
} from './push.js';

export interface ActionOptions extends Pick<PushOptions, 'signal' | 'ignoreSchedule'> {
  /** Push the queue after the local change (offline devices and `--no-push` do not). @default true */
  readonly push?: boolean;
}

/** What happened to the action's command. `queued`: not pushed (yet); see `ActionResult.push`. */
export interface ActionCommand {
  readonly id: string;
  readonly state: 'done' | 'queued' | 'waiting' | 'failed';
  readonly error?: CommandError;
  /** The function's output, once the command is done. */
  readonly output?: unknown;
}

export interface ActionResult {
  readonly action: string;
  readonly type: ActionDefinition['type'];
  readonly method?: ExecuteEntityAction['options']['method'];
  readonly entity?: string;
  /** The record's id: a temporary one (`_tmp_...`) until the service gave the real one. */
  readonly record?: string;
  /** The local row after the action (null: deleted, or no local change). */
  readonly row?: Record<string, unknown> | null;
  /** The queued remote call, when the action has a function. */
  readonly command?: ActionCommand;
  /** Queue actions: the commands they changed. */
  readonly commands?: readonly string[];
  readonly push?: PushResult;
  /** What `onSuccess` asks for next: an action run here, or a step for a UI (`action.go-back`). */
  readonly next?: ActionResult | { readonly type: string; readonly ranHere: false };
}

/** The action types restfn runs; any other `onSuccess` is a step for a screen. */
const RUNNABLE: ReadonlySet<string> = new Set(['action.execute-entity', ...QUEUE_ACTION_TYPES]);

/** Actions that start each other through `onSuccess` deeper than this are a cycle. */
const MAX_CHAIN = 8;

/**
 * Runs the action file `name` with what a screen gives (`current.item`, `components`, `jig.inputs`,
 * `user`): the local change and its queued command in one transaction, then a push (unless
 * `push: false`), then `onSuccess`.
 */
export async function runAction(
  engine: QueueEngine,
  name: string,
  context: CallContext,
  options: ActionOptions,
): Promise<ActionResult> {
  return runFile(engine, actionFile(engine, name), context, options, 0);
}

function actionFile(engine: QueueEngine, name: string): SourceFile<'action'> {
  const actions = engine.solution.files.filter((f) => f.kind === 'action');
  const file = actions.find((f) => f.name === name);
  if (!file) {
    throw new UsageError(
      `action '${name}' does not exist${didYouMean(
        name,
        actions.map((f) => f.name),
      )}; actions are the files in the solution's actions/ folder`,
      'ACTION_NOT_FOUND',
    );
  }
  if (!file.definition) {
    throw new DefinitionError(
      `action '${name}' is invalid (${file.yaml.file}); run 'restfn validate' for details`,
    );
  }
  return file as SourceFile<'action'>;
}

async function runFile(
  engine: QueueEngine,
  file: SourceFile<'action'>,
  context: CallContext,
  options: ActionOptions,
  depth: number,
  definition: ActionDefinition = file.definition!,
  at: PropertyPath = [],
): Promise<ActionResult> {
  const ctx = createContext(engine.solution, randomUUID(), engine.options, context);
  const evaluate = fieldsOf(file, ctx, engine.expressions);
  const field = (path: PropertyPath, raw: unknown) => evaluate([...at, ...path], raw, ctx);
  const result =
    definition.type === 'action.execute-entity'
      ? await executeEntity(engine, file.name, definition, ctx, field, options)
      : await queueAction(engine, file.name, definition, field);
  const failed = result.command?.state === 'failed';
  const onSuccess = definition.options.onSuccess;
  if (onSuccess === undefined || failed) return result;
  try {
    return { ...result, next: await next(engine, file, onSuccess, context, options, depth, at) };
  } catch (error) {
    // What already happened stays done: the failure must not read as if the action did nothing.
    if (error instanceof Error && depth === 0) {
      const done = result.command
        ? `its command is ${result.command.state === 'done' ? 'sent' : result.command.state}`
        : 'its local change is made';
      error.message = `action '${file.name}' ran (${done}), but its onSuccess failed: ${error.message}`;
    }
    throw error;
  }
}

/** `onSuccess`: another action file by name, an action written in place, or a step for a UI. */
async function next(
  engine: QueueEngine,
  file: SourceFile<'action'>,
  onSuccess: string | { type: string },
  context: CallContext,
  options: ActionOptions,
  depth: number,
  at: PropertyPath,
): Promise<ActionResult | { type: string; ranHere: false }> {
  if (depth + 1 >= MAX_CHAIN) {
    throw new DefinitionError(
      `actions start each other through onSuccess more than ${MAX_CHAIN} deep from '${file.name}': a cycle`,
    );
  }
  if (typeof onSuccess === 'string') {
    return runFile(engine, actionFile(engine, onSuccess), context, options, depth + 1);
  }
  const path = [...at, 'options', 'onSuccess'];
  const parsed = actionDefinition.safeParse(onSuccess);
  if (!parsed.success) {
    // A step only a screen can take (go back, navigate): recorded, not run.
    if (!RUNNABLE.has(onSuccess.type)) return { type: onSuccess.type, ranHere: false };
    const where = file.yaml.locate(path);
    throw new DefinitionError(
      `${where.file}:${where.line}:${where.col}: onSuccess is not a valid ${onSuccess.type}: ${parsed.error.issues[0]?.message}`,
    );
  }
  return runFile(engine, file, context, options, depth + 1, parsed.data as ActionDefinition, path);
}

type Field = (path: PropertyPath, raw: unknown) => Promise<unknown>;

async function values(
  raw: Readonly<Record<string, unknown>> | undefined,
  path: PropertyPath,
  field: Field,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw ?? {})) out[key] = await field([...path, key], value);
  return out;
}

async function executeEntity(
  engine: QueueEngine,
  name: string,
  definition: ExecuteEntityAction,
  ctx: ExecutionContext,
  field: Field,
  options: ActionOptions,
): Promise<ActionResult> {
  const { store, queue } = engine;
  const o = definition.options;
  const entity = o.entity;
  ctx.entity = entity;
  // Older files put both the row's values and the function's parameters in functionParameters.
  const dataPath = o.data ? ['options', 'data'] : ['options', 'functionParameters'];
  const parameterPath = o.parameters ? ['options', 'parameters'] : ['options', 'functionParameters'];
  const data = typed(engine, name, o.function, await values(o.data ?? o.functionParameters, dataPath, field));
  let parameters: Record<string, unknown> | undefined;
  const parametersNow = async () => {
    parameters ??= await values(o.parameters ?? o.functionParameters, parameterPath, field);
    return parameters;
  };
  const table = store.ensureTable(entity);
  const read = (id: string) => {
    const row = store.db.prepare(`SELECT data FROM ${table} WHERE id = ?`).get(id) as
      | { data: string }
      | undefined;
    return row && (JSON.parse(row.data) as Record<string, unknown>);
  };

  // The record: a created one gets a temporary id unless the screen gave one; the others name theirs
  // in data.id (else parameters.id).
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
  ctx.record = row ?? existing ?? null;
  const fn = o.function;
  const commandId = randomUUID();
  const params = fn === undefined ? {} : await parametersNow();
  const record = o.method === 'functionCall' ? null : (id ?? null);

  // The local change and its command, together: a crash leaves both or neither.
  let queued = fn !== undefined;
  store.db.transaction(() => {
    if (row) {
      store.db
        .prepare(
          `INSERT INTO ${table} (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data`,
        )
        .run(id, JSON.stringify(row));
    } else if (o.method === 'delete') {
      store.db.prepare(`DELETE FROM ${table} WHERE id = ?`).run(id);
      // A record that only ever existed here: nothing to delete remotely, and its queued changes go.
      // Once its create may have reached the service (an answer can be lost on the way back), the
      // delete queues behind the create instead and gets the real id with it.
      const commands = queue.forRecord(entity, id!);
      if (isTempId(id) && !commands.some(mayHaveReachedService)) {
        for (const c of commands) dropCommand(engine, c);
        queued = false;
      }
    }
    if (!queued) return;
    if (o.queueOperation === 'replace' && record !== null) queue.dropReplaceable(entity, record, fn!);
    queue.add({
      id: commandId,
      type: o.method as CommandType,
      entity,
      record,
      function: fn!,
      payload: { parameters: params, ...(tempId ? { tempId } : {}) },
    });
  })();

  const local = { action: name, type: definition.type, method: o.method, entity } as const;
  const rowNow = () => (record === null ? null : (read(record) ?? null));
  if (!queued) return { ...local, ...(record === null ? {} : { record }), row: rowNow() };
  if (options.push === false) {
    return {
      ...local,
      ...(record === null ? {} : { record }),
      row: rowNow(),
      command: { id: commandId, state: 'queued' },
    };
  }
  const push = await pushQueue(engine, options);
  const outcome = push.outcomes.find((c) => c.id === commandId);
  const command: ActionCommand = outcome
    ? {
        id: commandId,
        state: outcome.state,
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(outcome.state === 'done' ? { output: outcome.output } : {}),
      }
    : { id: commandId, state: queue.get(commandId)?.state === 'waiting' ? 'waiting' : 'queued' };
  const finalRecord = outcome?.record ?? record;
  return {
    ...local,
    ...(finalRecord === null ? {} : { record: finalRecord }),
    row: finalRecord === null ? null : (read(finalRecord) ?? null),
    command,
    push,
  };
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

/** A command removed without being sent: with it goes its error row. */
function dropCommand(engine: QueueEngine, command: Command): void {
  engine.queue.remove(command.id);
  removeErrorRow(engine.store, errorTable(command), command.id);
}

function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * `action.retry-queue-command`, `action.delete-queue-command`, `action.clear-queue` (spec 7.3): by
 * command id, the id of the command's row in the `{entity}_error` table.
 */
async function queueAction(
  engine: QueueEngine,
  name: string,
  definition: QueueAction,
  field: Field,
): Promise<ActionResult> {
  const given = await field(['options', 'commandId'], definition.options.commandId);
  const ids = (Array.isArray(given) ? given : [given]).map((v) => idOf(v));
  if (ids.length === 0 || ids.some((id) => id === undefined)) {
    throw new UsageError(
      `action '${name}': commandId gave no command id (got ${JSON.stringify(given) ?? 'nothing'}); it is the id of the command's row in the {entity}_error table, for example =@ctx.current.item.id on an error screen`,
      'COMMAND_NOT_FOUND',
    );
  }
  const changed = queueCommands(engine, definition.type, ids as string[]);
  return { action: name, type: definition.type, commands: changed };
}

/**
 * The queue actions, also behind `restfn queue retry|delete|clear`. All ids are checked before any
 * is changed: an unknown id or one being sent changes nothing.
 */
export function queueCommands(
  engine: QueueEngine,
  type: QueueAction['type'],
  ids: readonly string[],
): string[] {
  const { queue, store } = engine;
  const commands = ids.map((id) => {
    const command = queue.get(id);
    if (!command) {
      throw new UsageError(
        `no command '${id}' in the queue ('restfn queue' lists them)`,
        'COMMAND_NOT_FOUND',
      );
    }
    if (command.state === 'processing') {
      throw new UsageError(
        `command '${id}' is being sent right now; try again when the push is over`,
        'COMMAND_BUSY',
      );
    }
    return command;
  });
  const changed: string[] = [];
  store.db.transaction(() => {
    for (const command of commands) {
      if (type === 'action.retry-queue-command') {
        queue.retry(command.id);
        changed.push(command.id);
      } else if (type === 'action.delete-queue-command') {
        dropCommand(engine, command);
        changed.push(command.id);
      } else {
        for (const id of queue.clearFrom(command)) {
          removeErrorRow(store, errorTable(command), id);
          changed.push(id);
        }
      }
    }
  })();
  return changed;
}
