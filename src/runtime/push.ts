import { type ErrorCode, isErrorCode } from '../errors/codes.js';
import { type CommandFailure, decideCommandFailure } from '../errors/command-retry.js';
import { CredentialError } from '../errors/credential-error.js';
import { parseRetryAfter } from '../errors/retry-after.js';
import { isTempId, TEMP_ID_PREFIX } from '../expression/functions.js';
import { AbortedError, NetworkError, RemoteError, TimeoutError } from '../http/errors.js';
import type { Command, CommandError, CommandQueue } from '../local/command-queue.js';
import { currentProcessId, workerEnded, workerName } from '../local/process-alive.js';
import { Stage, type StagedWrite } from '../local/stage.js';
import type { LocalStore } from '../local/store.js';
import { replaceTempId } from '../local/temp-ids.js';
import { randomUUID } from '../portable/random.js';
import { Deadline } from './deadline.js';
import type { Engine } from './engine.js';
import { runFunction } from './pipeline.js';
import { planWrites } from './writes.js';

export interface PushOptions {
  readonly signal?: AbortSignal;
  /**
   * Send waiting commands whose next attempt is still ahead too (someone asked for it: `restfn queue
   * push`, a "sync now" button). Automatic pushes leave them until their time. @default false
   */
  readonly ignoreSchedule?: boolean;
  /** Called after each command was sent (or given up for now). */
  readonly onCommand?: (outcome: CommandOutcome) => void;
}

export interface CommandOutcome {
  readonly id: string;
  readonly type: Command['type'];
  readonly entity: string | null;
  /** The record's id after the command: the real id once a created record got one. */
  readonly record: string | null;
  readonly function: string | null;
  /** `done`: sent and removed from the queue. */
  readonly state: 'done' | 'waiting' | 'failed';
  readonly error?: CommandError;
  /** The function's output, for a command that is done. */
  readonly output?: unknown;
}

export interface PushResult {
  readonly sent: number;
  readonly waiting: number;
  readonly failed: number;
  /** Commands still in the queue afterwards (waiting, failed, held back, or not reached). */
  readonly remaining: number;
  /** Why the push stopped before the end of the queue: nothing else could get through. */
  readonly stopped?: 'offline' | 'credentials';
  readonly outcomes: readonly CommandOutcome[];
}

export type QueueEngine = Engine & { readonly store: LocalStore; readonly queue: CommandQueue };

/** Pushes running in this process, by worker id: a `processing` command of any other one is abandoned. */
const running = new Set<string>();
/** One push at a time per database in this process (two would only race for the same commands). */
const pushing = new WeakMap<LocalStore, Promise<unknown>>();

/**
 * Sends the queued commands, first in first out, each once its record's earlier commands are gone.
 * Commands a crashed push left `processing` are resumed first (same id, so the same idempotency
 * key). Each command's outcome is written at once: done (removed; a created record's temporary id
 * replaced by the real one; the function's operations written), waiting (a transient failure, with
 * its next attempt) or failed (its error, and a `{entity}_error` row whose id is the command id).
 */
export function pushQueue(engine: QueueEngine, options: PushOptions = {}): Promise<PushResult> {
  const before = pushing.get(engine.store) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(() => pushAll(engine, options));
  pushing.set(engine.store, run);
  return run;
}

async function pushAll(engine: QueueEngine, options: PushOptions): Promise<PushResult> {
  const { queue } = engine;
  const worker = workerName(randomUUID());
  running.add(worker);
  const outcomes: CommandOutcome[] = [];
  let stopped: PushResult['stopped'];
  try {
    queue.resumeAbandoned(isGone);
    const due = options.ignoreSchedule ? undefined : iso(engine.options.clock.now());
    let after = 0;
    /** The next command that may go, claimed (marked processing, its attempt counted). */
    const claimNext = (): Command | undefined => {
      for (;;) {
        const command = queue.next(after, due);
        if (!command) return undefined;
        after = command.seq;
        if (queue.claim(command.id, worker)) return { ...command, attempts: command.attempts + 1 };
      }
    };
    // One transaction writes a command's outcome and claims the next: one commit per command, and
    // a claim is on disk before its request leaves (what a crash-resume and a delete rely on).
    const settle = engine.store.db.transaction((write: () => void, more: boolean) => {
      write();
      return more && !options.signal?.aborted ? claimNext() : undefined;
    });
    for (let command = settle(() => undefined, true); command; ) {
      const sent = await send(engine, command, options);
      command = settle(sent.write, sent.stop === undefined);
      outcomes.push(sent.outcome);
      options.onCommand?.(sent.outcome);
      if (sent.stop) stopped = sent.stop;
    }
    options.signal?.throwIfAborted();
  } finally {
    running.delete(worker);
  }
  const count = (state: CommandOutcome['state']) => outcomes.filter((o) => o.state === state).length;
  return {
    sent: count('done'),
    waiting: count('waiting'),
    failed: count('failed'),
    remaining: queue.count(),
    ...(stopped ? { stopped } : {}),
    outcomes,
  };
}

/** A claim whose push is over: this process's that ended, or another process's that is gone. */
function isGone(worker: string | null): boolean {
  if (worker === null) return true;
  return Number(worker.split(':')[0]) === currentProcessId() ? !running.has(worker) : workerEnded(worker);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** How a command's send ended: the outcome, and its writes (made with the next command's claim). */
interface Sent {
  readonly outcome: CommandOutcome;
  readonly write: () => void;
  /** Nothing else can get through now: the push ends after this command. */
  readonly stop?: 'offline' | 'credentials';
}

/** Calls the command's function once (with the call's own retries) and records how it ended. */
async function send(engine: QueueEngine, command: Command, options: PushOptions): Promise<Sent> {
  const { queue, store } = engine;
  const about = {
    id: command.id,
    type: command.type,
    entity: command.entity,
    record: command.record,
    function: command.function,
  };
  if (command.function === null) {
    return { outcome: { ...about, state: 'done' }, write: () => queue.remove(command.id) };
  }
  const name = command.function;
  const unresolved = unresolvedTempIds(command);
  if (unresolved.length > 0) return failed(engine, command, about, new UnresolvedTempIdError(unresolved));
  const call = { entity: command.entity ?? name, commandId: command.id };
  // Offline is the queue's normal case: it waits for the next push instead of sleeping through the
  // call's network retries (a command is safe to resend later: it carries its idempotency key).
  const commandEngine: Engine = {
    ...engine,
    options: { ...engine.options, retry: { ...engine.options.retry, networkRetries: 0 } },
  };
  let execution: Awaited<ReturnType<typeof runFunction>>;
  try {
    const deadline = new Deadline(
      'execution',
      engine.options.executionTimeoutMs,
      `function '${name}'`,
      options.signal,
    );
    execution = await deadline.run((signal) =>
      runFunction(commandEngine, name, command.payload.parameters, call, { signal }),
    );
  } catch (error) {
    if (error instanceof AbortedError || options.signal?.aborted) {
      // Stopped by the caller, not by the service: the command goes back as it was (attempt counted).
      queue.release(command.id);
      throw error;
    }
    return failed(engine, command, about, error);
  }

  // From here on the service has the change: the command is done whatever happens locally, and a
  // local problem is said on its outcome (sending it again would repeat the change).
  const output = execution.result.status === 'ok' ? execution.result.output : undefined;
  const realId = createdId(command, output);
  const replaced = realId !== undefined && command.entity !== null && command.payload.tempId !== undefined;
  const outcome: { -readonly [K in keyof CommandOutcome]: CommandOutcome[K] } = {
    ...about,
    record: replaced ? String(realId) : command.record,
    state: 'done',
    output,
  };
  const localWriteFailed = (error: unknown) => {
    const e = error as { message?: string };
    outcome.error = {
      code: 'LOCAL_WRITE_FAILED' satisfies ErrorCode,
      message: `sent, but writing the function's operations locally failed: ${e.message ?? String(error)}`,
    };
  };
  // What the function writes locally after a command: its operations, or a merge of its records
  // (forRowsWithMatchingIds). Never a whole-table replace: that belongs to syncs.
  const d = execution.file.definition;
  let writes: StagedWrite[] = [];
  if (execution.result.status === 'ok' && (d.operations?.length || d.forRowsWithMatchingIds === true)) {
    try {
      writes = await planWrites(engine, execution, call.entity, true);
    } catch (error) {
      localWriteFailed(error);
    }
  }
  if (command.payload.tempId !== undefined && command.entity !== null && !replaced && output !== undefined) {
    outcome.error ??= {
      code: 'CREATED_WITHOUT_ID' satisfies ErrorCode,
      message: `sent, but the service's answer has no id: record '${command.record}' keeps its temporary id, and commands that refer to it will not be sent`,
    };
  }
  const write = () => {
    queue.remove(command.id);
    removeErrorRow(store, errorTable(command), command.id);
    if (replaced) {
      const keep = execution.file.definition.keepTempIds === true;
      const { replacedStale, heldBack } = replaceTempId(
        store,
        queue,
        command.entity!,
        command.payload.tempId!,
        realId!,
        keep,
      );
      if (replacedStale) {
        const held =
          heldBack.length > 0
            ? `; ${heldBack.length} queued change(s) for the old record failed unsent (${heldBack.join(', ')})`
            : '';
        outcome.error ??= {
          code: 'RECORD_REPLACED' satisfies ErrorCode,
          message: `sent; the service gave the new record the id '${realId}', which a stale row in '${command.entity}' held: the new record replaced it${held}`,
        };
      }
    }
    try {
      if (writes.length > 0) Stage.apply(store, writes);
    } catch (error) {
      localWriteFailed(error);
    }
  };
  return { outcome, write };
}

/**
 * Temporary ids in the command's parameters other than its own record's: records created offline
 * whose create is no longer in the queue without having given them a real id (`next` holds a command
 * back while the create is still queued). Sent as they are, the service would get `_tmp_…` ids.
 */
function unresolvedTempIds(command: Command): string[] {
  const text = JSON.stringify(command.payload.parameters ?? {});
  const found = new Set(text.match(TEMP_ID_PATTERN) ?? []);
  if (command.payload.tempId !== undefined) found.delete(command.payload.tempId);
  return [...found];
}

const TEMP_ID_PATTERN = new RegExp(`${TEMP_ID_PREFIX}[A-Za-z0-9-]+`, 'g');

/** A command that names records created offline which never got a real id: failed, never sent. */
class UnresolvedTempIdError extends Error {
  readonly code: ErrorCode = 'TEMP_ID_UNRESOLVED';
  constructor(ids: readonly string[]) {
    super(
      `refers to ${ids.length > 1 ? 'records' : 'record'} ${ids.map((id) => `'${id}'`).join(', ')} created offline, whose create never gave a real id (it was deleted from the queue, or the service's answer had no id), so it was not sent; delete it with 'restfn queue delete', or fix the record and run the action again`,
    );
  }
}

/** The real id a created record got: the output's `id`, when it is one and differs from the temp id. */
function createdId(command: Command, output: unknown): string | number | undefined {
  const tempId = command.payload.tempId;
  if (tempId === undefined || output === null || typeof output !== 'object') return undefined;
  const id = (output as { id?: unknown }).id;
  if (
    (typeof id !== 'string' || id === '' || isTempId(id)) &&
    !(typeof id === 'number' && Number.isFinite(id))
  )
    return undefined;
  return String(id) === tempId ? undefined : id;
}

function failed(
  engine: QueueEngine,
  command: Command,
  about: Omit<CommandOutcome, 'state'>,
  error: unknown,
): Sent {
  const { queue, store } = engine;
  const failure = commandFailure(engine, command, error);
  const verdict = decideCommandFailure(failure, command.attempts, engine.options.retry);
  const e = error as {
    code?: string;
    message?: string;
    status?: number;
    title?: string;
    description?: string;
    details?: string;
  };
  const described: CommandError = {
    code: isErrorCode(e.code) ? e.code : 'ENGINE_ERROR',
    message: e.message ?? String(error),
    reason: verdict.reason,
    // Once one attempt may have reached the service, no later one can say it never did.
    ...(neverSent(error) && (command.attempts === 1 || command.error?.notSent === true)
      ? { notSent: true }
      : {}),
    ...(typeof e.status === 'number' ? { status: e.status } : {}),
    ...(typeof e.title === 'string' ? { title: e.title } : {}),
    ...(typeof e.description === 'string' ? { description: e.description } : {}),
    ...(typeof e.details === 'string' ? { details: e.details } : {}),
  };
  if (verdict.state === 'waiting') {
    const next = verdict.delayMs === undefined ? null : iso(engine.options.clock.now() + verdict.delayMs);
    const stop = verdict.stopPush ? (failure.kind === 'credentials' ? 'credentials' : 'offline') : undefined;
    return {
      outcome: { ...about, state: 'waiting', error: described },
      write: () => queue.wait(command.id, described, next),
      ...(stop ? { stop } : {}),
    };
  }
  const at = iso(engine.options.clock.now());
  return {
    outcome: { ...about, state: 'failed', error: described },
    write: () => {
      queue.fail(command.id, described);
      writeErrorRow(store, errorTable(command), command, described, at);
    },
  };
}

function commandFailure(engine: QueueEngine, command: Command, error: unknown): CommandFailure {
  if (error instanceof CredentialError) return { kind: 'credentials' };
  if (error instanceof UnresolvedTempIdError) return { kind: 'unresolved' };
  if (error instanceof TimeoutError) return { kind: 'timeout' };
  if (error instanceof NetworkError) return { kind: 'network' };
  if (!(error instanceof RemoteError)) return { kind: 'other' };
  const index = error.handler;
  const handler =
    index === undefined
      ? undefined
      : engine.solution.functions.get(command.function ?? '')?.definition?.error?.[index - 1];
  return {
    kind: 'status',
    status: error.status,
    retryAfterMs: parseRetryAfter(error.response.headers['retry-after'], engine.options.clock.now()),
    ...(handler ? { handler: { retries: handler.retry !== undefined } } : {}),
  };
}

/** `{entity}_error` (spec 7.3), or `{function}_error` for a call without an entity. */
export function errorTable(command: Pick<Command, 'entity' | 'function'>): string {
  return `${command.entity ?? command.function}_error`;
}

/**
 * The failed command's row in the error table, id = command id. A row the function's error handler
 * wrote for it already (its own operations) keeps its fields; these fill in the rest.
 */
function writeErrorRow(
  store: LocalStore,
  table: string,
  command: Command,
  error: CommandError,
  at: string,
): void {
  const quoted = store.ensureTable(table);
  const data = {
    id: command.id,
    commandId: command.id,
    entity: command.entity,
    record: command.record,
    function: command.function,
    type: command.type,
    ...error,
    attempts: command.attempts,
    at,
  };
  store.db
    .prepare(
      `INSERT INTO ${quoted} (id, data) VALUES (?, ?)
       ON CONFLICT(id) DO UPDATE SET data = restfn_merge(excluded.data, ${quoted}.data)`,
    )
    .run(command.id, JSON.stringify(data));
}

/** A command that went through, or was dropped, no longer has an error to show. */
export function removeErrorRow(store: LocalStore, table: string, commandId: string): void {
  if (store.hasTable(table))
    store.statement(`DELETE FROM ${store.ensureTable(table)} WHERE id = ?`).run(commandId);
}

/** Failures before a request could reach the service: no connection was made, or no credential. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function neverSent(error: unknown): boolean {
  if (error instanceof CredentialError || error instanceof UnresolvedTempIdError) return true;
  return error instanceof NetworkError && error.causeCode !== undefined && NOT_CONNECTED.has(error.causeCode);
}
