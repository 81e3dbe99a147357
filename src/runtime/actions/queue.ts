import type { QueueAction } from '../../definition/schema/index.js';
import { UsageError } from '../../errors/restfn-error.js';
import type { Command } from '../../local/command-queue.js';
import { errorTable, type QueueEngine, removeErrorRow } from '../push.js';
import { type Evaluator, idOf } from './step-context.js';
import type { ActionResult } from './types.js';

/** A command removed without being sent: with it goes its error row. */
export function dropCommand(engine: QueueEngine, command: Command): void {
  engine.queue.remove(command.id);
  removeErrorRow(engine.store, errorTable(command), command.id);
}

/**
 * `action.retry-queue-command`, `action.delete-queue-command`, `action.clear-queue` (spec 7.3), by
 * `id` (or the older `commandId`): the id of the command's row in the `{entity}_error` table, or a
 * list of them. `clear-queue` also takes a record's id: its queued commands go, its row stays.
 */
export async function queueAction(
  engine: QueueEngine,
  name: string,
  step: QueueAction,
  ev: Evaluator,
): Promise<ActionResult> {
  const key = step.options.id !== undefined ? 'id' : 'commandId';
  const given = await ev.field(['options', key], step.options[key]);
  const ids = (Array.isArray(given) ? given : [given]).map((v) => idOf(v));
  if (ids.length === 0 || ids.some((id) => id === undefined)) {
    throw new UsageError(
      `action '${name}': ${key} gave no command id (got ${JSON.stringify(given) ?? 'nothing'}); it is the id of the command's row in the {entity}_error table, for example =@ctx.current.item.id on an error screen`,
      'COMMAND_NOT_FOUND',
    );
  }
  const changed = queueCommands(engine, step.type, ids as string[]);
  return { action: name, type: step.type, commands: changed };
}

/**
 * The queue actions, also behind `restfn queue retry|delete|clear`. All ids are checked before any
 * is changed: an unknown id or one being sent changes nothing. For `clear-queue` an id that is no
 * command's is a record's: the platform's "clear the queue for this record" (a draft thrown away).
 */
export function queueCommands(
  engine: QueueEngine,
  type: QueueAction['type'],
  ids: readonly string[],
): string[] {
  const { queue, store } = engine;
  const busy = (command: Command) => {
    if (command.state === 'processing') {
      throw new UsageError(
        `command '${command.id}' is being sent right now; try again when the push is over`,
        'COMMAND_BUSY',
      );
    }
    return command;
  };
  const commands = ids.flatMap((id) => {
    const command = queue.get(id);
    if (command) return [busy(command)];
    if (type === 'action.clear-queue') {
      // The record's first command in each table: clearing from it clears the rest (clearFrom).
      const first = new Map<string | null, Command>();
      for (const c of queue.list()) if (c.record === id && !first.has(c.entity)) first.set(c.entity, c);
      if (first.size > 0) return [...first.values()].map(busy);
    }
    throw new UsageError(
      `no command '${id}' in the queue${type === 'action.clear-queue' ? ', and no record with that id has queued commands' : ''} ('restfn queue' lists them)`,
      'COMMAND_NOT_FOUND',
    );
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
