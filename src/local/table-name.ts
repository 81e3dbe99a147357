import { RestfnError } from '../errors/restfn-error.js';

/**
 * Table names and their quoting, apart from the store so that code which only plans writes (the
 * stage, `restfn run`) does not load SQLite.
 */

/** Prefix of the tables a sync stages its writes in; left-overs from a crash are dropped on open. */
export const STAGE_PREFIX = '_restfn_stage_';

export class StoreError extends RestfnError {}

/** `[name]` for SQL; names are checked once so no identifier can break out of the brackets. */
export function quoteTable(name: string): string {
  const bad =
    name.length === 0 || name.length > 128 || name.includes(']') || name.includes(String.fromCharCode(0));
  if (bad || name.startsWith(STAGE_PREFIX)) {
    throw new StoreError('INVALID_TABLE', `'${name}' cannot be a table name (1-128 characters, no ']')`);
  }
  return `[${name}]`;
}
