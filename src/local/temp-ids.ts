import { TEMP_ID_PREFIX } from '../expression/functions.js';
import { randomUUID } from '../portable/random.js';
import type { CommandQueue } from './command-queue.js';
import type { LocalStore } from './store.js';
import { quoteTable } from './table-name.js';

/**
 * A record created offline got its real id from the service: the temporary id is replaced
 * everywhere it can be, in the caller's transaction. In `entity`, the row takes the real id, or with
 * `keepTempIds` a copy with the real id is added and the temporary row stays. A row that already
 * held the real id is stale (a record deleted on the service whose id it gave out again, a sync from
 * before): the record just created is the service's, so it replaces that row, and the commands
 * still queued for the old record fail unsent (`heldBack`); the caller says so. Every entity table's data that mentions the temporary id
 * (references from other rows) and every queued command's payload (later changes to the same
 * record) get the real one. Temporary ids are `_tmp_<uuid>`, so a text replacement in the JSON
 * cannot hit anything else; see `jsonReplacement` for how the real id is written so that the JSON
 * stays valid whatever the id holds.
 */
export function replaceTempId(
  store: LocalStore,
  queue: CommandQueue,
  entity: string,
  tempId: string,
  real: string | number,
  keepTempIds: boolean,
): { readonly replacedStale: boolean; readonly heldBack: readonly string[] } {
  const db = store.db;
  const table = store.ensureTable(entity);
  const realId = String(real);
  const args = { find: tempId, replace: realId, json: JSON.stringify(real) };
  // The record's own `id` keeps the type the service gave (a number stays a number).
  const withId = `json_set(data, '$.id', json(@json))`;
  const created = db.prepare(`SELECT 1 FROM ${table} WHERE id = @find`).get({ find: tempId }) !== undefined;
  const stale =
    created && db.prepare(`DELETE FROM ${table} WHERE id = @replace`).run({ replace: realId }).changes > 0;
  // Changes still queued for the record that held the id were meant for that record, not for the
  // one the service just made: sent now, they would change it. They fail, unsent, to be looked at.
  const heldBack = queue.forRecord(entity, realId).map((c) => c.id);
  for (const id of heldBack) {
    queue.fail(id, {
      code: 'RECORD_REPLACED',
      message: `not sent: record '${realId}' of '${entity}' is now a new record the service created (from ${tempId}); this change was for the record that held the id before. Delete it ('restfn queue delete'), or retry it to apply it to the new record`,
      notSent: true,
    });
  }
  if (keepTempIds) {
    db.prepare(
      `INSERT INTO ${table} (id, data) SELECT @replace, ${withId} FROM ${table} WHERE id = @find`,
    ).run(args);
  } else {
    db.prepare(`UPDATE ${table} SET id = @replace, data = ${withId} WHERE id = @find`).run(args);
  }
  const replacement = jsonReplacement(tempId, real);
  for (const name of store.entityTables()) {
    db.prepare(
      `UPDATE ${quoteTable(name)} SET data = ${replacement.sql('data')}
       WHERE instr(data, @find) > 0 AND NOT (id = @find AND @keep)`,
    ).run({ ...replacement.args, keep: keepTempIds ? 1 : 0 });
  }
  queue.replaceId(tempId, realId, replacement);
  return { replacedStale: stale || heldBack.length > 0, heldBack };
}

/**
 * How a temporary id is replaced inside JSON texts (rows' data, commands' payloads). A value that is
 * the temporary id alone (`"_tmp_…"`) becomes the real id as JSON: a number stays a number, and a
 * string is quoted and escaped, so an id holding `"` or `\` cannot break the text. Inside a longer
 * string (`"customers/_tmp_…"`) the id is replaced by the real one's escaped string form.
 */
export interface JsonReplacement {
  readonly args: {
    readonly find: string;
    readonly whole: string;
    readonly json: string;
    readonly inner: string;
  };
  /** The SQL expression replacing the temporary id in `column`, with the named parameters of `args`. */
  sql(column: string): string;
}

export function jsonReplacement(tempId: string, real: string | number): JsonReplacement {
  const json = JSON.stringify(real);
  return {
    args: {
      find: tempId,
      whole: JSON.stringify(tempId),
      json,
      inner: JSON.stringify(String(real)).slice(1, -1),
    },
    sql: (column) => `replace(replace(${column}, @whole, @json), @find, @inner)`,
  };
}

/** A temporary id for a record created here: `_tmp_<uuid>`, which `$isTempId` recognises. */
export function newTempId(): string {
  return `${TEMP_ID_PREFIX}${randomUUID()}`;
}
