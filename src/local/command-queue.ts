import { TEMP_ID_PREFIX } from '../expression/functions.js';
import type { SqlDatabase, SqlStatement } from './database.js';
import { COMMAND_QUEUE_TABLE } from './stage.js';
import type { JsonReplacement } from './temp-ids.js';

/**
 * The offline command queue: the system table `_commandQueue` in the local database. Every action's
 * remote call waits here until it went through; the row is removed once it did. All of it is
 * synchronous SQL, so callers can put an enqueue in the same transaction as the local change.
 *
 * Columns beyond conventions.md's (`id, queue, type, entity, function, payload, state, error,
 * attempts, created, updated`): `seq` (first in, first out), `record` (the row the command is about,
 * which orders commands per record), `nextAttempt` (when a waiting command may go again) and
 * `worker` (the process sending a `processing` command, so a crashed one can be resumed).
 */
export type CommandState = 'queued' | 'processing' | 'waiting' | 'failed';

export type CommandType = 'create' | 'update' | 'save' | 'delete' | 'functionCall';

/** What the command sends: the function's parameter values, evaluated when the action ran. */
export interface CommandPayload {
  readonly parameters: Record<string, unknown>;
  /** The local row's id when the action created it with a temporary id (replaced once known). */
  readonly tempId?: string;
  /** What built it (absent in commands queued before restfn kept it): see command-source.ts. */
  readonly source?: CommandSource;
}

/** The definition a command was built from, and what its parameters were evaluated with. */
export interface CommandSource {
  /** The action file its step is written in, and the step's path there. */
  readonly action: string;
  readonly at: ReadonlyArray<string | number>;
  /** `definitionHash` of the action's and the function's files when it was built. */
  readonly hash: string;
  /** What the screen gave and the record, as the parameters saw them (`contextSnapshot`). */
  readonly context: Record<string, unknown>;
}

export interface Command {
  readonly seq: number;
  readonly id: string;
  readonly queue: string;
  readonly type: CommandType;
  readonly entity: string | null;
  readonly record: string | null;
  readonly function: string | null;
  readonly payload: CommandPayload;
  readonly state: CommandState;
  /** Why the command failed or waits: the error's code, message, status and title. */
  readonly error: CommandError | null;
  readonly attempts: number;
  /** ISO time before which a waiting command is not sent by an automatic push. */
  readonly nextAttempt: string | null;
  readonly worker: string | null;
  readonly created: string;
  readonly updated: string;
}

export interface CommandError {
  readonly code: string;
  readonly message: string;
  /** What the queue made of it: why the command waits or failed. */
  readonly reason?: string;
  /** The request never left (no connection, no credential): the service cannot have applied it. */
  readonly notSent?: boolean;
  readonly status?: number;
  readonly title?: string;
  readonly description?: string;
  /** What the service said (the handler's details, else the response body), masked and cut. */
  readonly details?: string;
}

/**
 * Whether the service may have applied the command: it is being sent, or an attempt may have reached
 * the service (its answer lost). Not after a definitive refusal, nor when no attempt left the device.
 */
export function mayHaveReachedService(command: Command): boolean {
  if (command.state === 'failed') return false;
  if (command.state === 'waiting') return command.error?.notSent !== true;
  return command.state === 'processing' || command.attempts > 0;
}

export interface NewCommand {
  readonly id: string;
  readonly queue?: string;
  readonly type: CommandType;
  readonly entity: string | null;
  readonly record: string | null;
  readonly function: string | null;
  readonly payload: CommandPayload;
}

const DEFAULT_QUEUE = 'default';

/** The table, created with `ensureCommandQueue` (also when a query first names it). */
export const COMMAND_QUEUE_SCHEMA = `CREATE TABLE IF NOT EXISTS [${COMMAND_QUEUE_TABLE}] (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  queue TEXT NOT NULL,
  type TEXT NOT NULL,
  entity TEXT,
  record TEXT,
  function TEXT,
  payload JSON NOT NULL,
  state TEXT NOT NULL,
  error JSON,
  attempts INTEGER NOT NULL DEFAULT 0,
  nextAttempt TEXT,
  worker TEXT,
  created TEXT NOT NULL,
  updated TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS [${COMMAND_QUEUE_TABLE}_record] ON [${COMMAND_QUEUE_TABLE}] (entity, record, seq);`;

interface Row {
  seq: number;
  id: string;
  queue: string;
  type: CommandType;
  entity: string | null;
  record: string | null;
  function: string | null;
  payload: string;
  state: CommandState;
  error: string | null;
  attempts: number;
  nextAttempt: string | null;
  worker: string | null;
  created: string;
  updated: string;
}

function fromRow(row: Row): Command {
  return {
    ...row,
    payload: JSON.parse(row.payload) as CommandPayload,
    error: row.error === null ? null : (JSON.parse(row.error) as CommandError),
  };
}

const Q = `[${COMMAND_QUEUE_TABLE}]`;

/**
 * The queue of one local database. Statements are prepared once; `now` gives ISO times from the
 * runtime's clock, so tests decide what time it is.
 */
export class CommandQueue {
  private readonly statements = new Map<string, SqlStatement>();

  constructor(
    readonly db: SqlDatabase,
    private readonly now: () => string,
  ) {
    db.exec(COMMAND_QUEUE_SCHEMA);
  }

  private sql(text: string): SqlStatement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  add(command: NewCommand): void {
    const now = this.now();
    this.sql(
      `INSERT INTO ${Q} (id, queue, type, entity, record, function, payload, state, attempts, created, updated)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?)`,
    ).run(
      command.id,
      command.queue ?? DEFAULT_QUEUE,
      command.type,
      command.entity,
      command.record,
      command.function,
      JSON.stringify(command.payload),
      now,
      now,
    );
  }

  /**
   * `queueOperation: replace`: the record's commands of the same function that have not started
   * (queued or waiting) are dropped; the new command is then added at the end, after the record's
   * other commands, so their order holds. Returns how many were dropped.
   */
  dropReplaceable(entity: string, record: string, fn: string | null): number {
    return this.sql(
      `DELETE FROM ${Q} WHERE entity = ? AND record = ? AND function IS ? AND state IN ('queued', 'waiting')`,
    ).run(entity, record, fn).changes;
  }

  /** Every command about one record (a delete of a record that only exists locally drops them). */
  forRecord(entity: string, record: string): Command[] {
    return (
      this.sql(`SELECT * FROM ${Q} WHERE entity = ? AND record = ? ORDER BY seq`).all(entity, record) as Row[]
    ).map(fromRow);
  }

  get(id: string): Command | undefined {
    const row = this.sql(`SELECT * FROM ${Q} WHERE id = ?`).get(id) as Row | undefined;
    return row && fromRow(row);
  }

  list(): Command[] {
    return (this.sql(`SELECT * FROM ${Q} ORDER BY seq`).all() as Row[]).map(fromRow);
  }

  count(): number {
    return (this.sql(`SELECT count(*) AS n FROM ${Q}`).get() as { n: number }).n;
  }

  /**
   * The first command after `afterSeq` that may be sent now: queued, or waiting and due (all waiting
   * ones when `due` is undefined), with no earlier command for the same record still in the queue
   * (in any state: a failed or waiting one holds the record's later changes back), and none whose
   * payload names another record created offline that is still in the queue (its real id comes with
   * that create's answer: a link to a new customer waits for the customer).
   */
  next(afterSeq: number, due: string | undefined): Command | undefined {
    const row = this.sql(
      `SELECT * FROM ${Q} AS c
       WHERE c.seq > @after
         AND (c.state = 'queued' OR (c.state = 'waiting' AND (@due IS NULL OR c.nextAttempt IS NULL OR c.nextAttempt <= @due)))
         AND (c.record IS NULL OR NOT EXISTS (
           SELECT 1 FROM ${Q} AS e WHERE e.entity IS c.entity AND e.record = c.record AND e.seq < c.seq))
         AND NOT EXISTS (
           SELECT 1 FROM ${Q} AS t WHERE t.seq < c.seq AND substr(t.record, 1, ${TEMP_ID_PREFIX.length}) = '${TEMP_ID_PREFIX}'
             AND t.record IS NOT c.record AND instr(c.payload, t.record) > 0)
       ORDER BY c.seq LIMIT 1`,
    ).get({ after: afterSeq, due: due ?? null }) as Row | undefined;
    return row && fromRow(row);
  }

  /**
   * Marks a command as being sent by `worker`, counting the attempt. False when another process took
   * it first (its state changed in between).
   */
  claim(id: string, worker: string): boolean {
    return (
      this.sql(
        `UPDATE ${Q} SET state = 'processing', worker = ?, attempts = attempts + 1, updated = ?
         WHERE id = ? AND state IN ('queued', 'waiting')`,
      ).run(worker, this.now(), id).changes === 1
    );
  }

  /**
   * Commands left `processing` by a worker that is gone (the process crashed or was killed): queued
   * again, keeping their attempt count and id, so the next send repeats the same idempotency key.
   */
  resumeAbandoned(isGone: (worker: string | null) => boolean): number {
    const stuck = this.sql(`SELECT id, worker FROM ${Q} WHERE state = 'processing'`).all() as Array<{
      id: string;
      worker: string | null;
    }>;
    let resumed = 0;
    for (const { id, worker } of stuck) {
      if (!isGone(worker)) continue;
      resumed += this.sql(
        `UPDATE ${Q} SET state = 'queued', worker = NULL, updated = ? WHERE id = ? AND state = 'processing'`,
      ).run(this.now(), id).changes;
    }
    return resumed;
  }

  /** A command whose send was stopped by the caller (not the service): queued again as it was. */
  release(id: string): void {
    this.sql(
      `UPDATE ${Q} SET state = 'queued', worker = NULL, updated = ? WHERE id = ? AND state = 'processing'`,
    ).run(this.now(), id);
  }

  remove(id: string): boolean {
    return this.sql(`DELETE FROM ${Q} WHERE id = ?`).run(id).changes === 1;
  }

  /** A transient failure: the command waits until `nextAttempt` (null: the next push). */
  wait(id: string, error: CommandError, nextAttempt: string | null): void {
    this.sql(
      `UPDATE ${Q} SET state = 'waiting', worker = NULL, error = ?, nextAttempt = ?, updated = ? WHERE id = ?`,
    ).run(JSON.stringify(error), nextAttempt, this.now(), id);
  }

  /** A definitive failure: the command stays, with its error, until retried or deleted. */
  fail(id: string, error: CommandError): void {
    this.sql(
      `UPDATE ${Q} SET state = 'failed', worker = NULL, error = ?, nextAttempt = NULL, updated = ? WHERE id = ?`,
    ).run(JSON.stringify(error), this.now(), id);
  }

  /** `restfn queue retry --rebuild`: the command's payload built again; its id and place stay. */
  replacePayload(id: string, payload: CommandPayload): boolean {
    return (
      this.sql(`UPDATE ${Q} SET payload = ?, updated = ? WHERE id = ? AND state <> 'processing'`).run(
        JSON.stringify(payload),
        this.now(),
        id,
      ).changes === 1
    );
  }

  /** `action.retry-queue-command`: queued again, to go at the next push. False when it is being sent. */
  retry(id: string): boolean {
    return (
      this.sql(
        `UPDATE ${Q} SET state = 'queued', nextAttempt = NULL, updated = ? WHERE id = ? AND state <> 'processing'`,
      ).run(this.now(), id).changes === 1
    );
  }

  /**
   * `action.clear-queue`: the command and every later command for the same record (they were
   * written on top of the change that failed). Returns the ids removed.
   */
  clearFrom(command: Command): string[] {
    const ids =
      command.record === null
        ? [command.id]
        : (
            this.sql(`SELECT id FROM ${Q} WHERE entity IS ? AND record = ? AND seq >= ? ORDER BY seq`).all(
              command.entity,
              command.record,
              command.seq,
            ) as Array<{ id: string }>
          ).map((r) => r.id);
    for (const id of ids) this.remove(id);
    return ids;
  }

  /** A temporary id became a real one: the commands' record column and payloads follow. */
  replaceId(find: string, replace: string, inPayloads: JsonReplacement): void {
    this.sql(`UPDATE ${Q} SET record = ? WHERE record = ?`).run(replace, find);
    this.sql(`UPDATE ${Q} SET payload = ${inPayloads.sql('payload')} WHERE instr(payload, @find) > 0`).run(
      inPayloads.args,
    );
  }
}

/**
 * The records with commands still in the queue, by entity: their local rows are ahead of the
 * service's, so a sync leaves them as they are until the commands went through (or were dropped).
 * Empty when the database has no queue.
 */
export function pendingRecords(db: SqlDatabase): Map<string, string[]> {
  const pending = new Map<string, string[]>();
  const exists = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(COMMAND_QUEUE_TABLE);
  if (!exists) return pending;
  const rows = db
    .prepare(`SELECT DISTINCT entity, record FROM ${Q} WHERE entity IS NOT NULL AND record IS NOT NULL`)
    .all() as Array<{ entity: string; record: string }>;
  for (const { entity, record } of rows) {
    const list = pending.get(entity) ?? [];
    list.push(record);
    pending.set(entity, list);
  }
  return pending;
}
