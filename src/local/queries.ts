import type { Database, Statement } from 'better-sqlite3';
import { databaseError, QueryError, QueryNotReadOnlyError } from './errors.js';
import { sqlValue } from './stage.js';

/** What a query needs of a store: the local store, or the read-only one `restfn query` opens. */
export interface QueryStore {
  readonly db: Database;
  readonly file: string;
  /** Makes `[name]` readable when the table does not exist yet (created empty). */
  ensureTable(name: string): string;
  /** When true, only statements that read are run (`refuseWrites`). */
  readonly readOnly?: boolean;
}

export type ResultType = 'records' | 'record' | 'scalar';

/** Tables a statement names as `[name]` after FROM, JOIN, INTO or UPDATE (not `[0]` inside JSON paths). */
const TABLE_REFERENCE = /\b(?:FROM|JOIN|INTO|UPDATE)\s+\[([^\]]+)\]/gi;

/**
 * Runs one SQL statement over the local tables. `@name` binds a parameter (only the names the
 * statement uses are passed). Tables it reads are created empty when they do not exist yet, so a
 * query before the first sync returns nothing instead of failing. The `data` column and the
 * `jsonColumns` come back parsed.
 */
export function runQuery(
  store: QueryStore,
  statement: string,
  parameters: Readonly<Record<string, unknown>>,
  resultType: ResultType = 'records',
  jsonColumns: readonly string[] = [],
): unknown {
  for (const match of statement.matchAll(TABLE_REFERENCE)) store.ensureTable(match[1]!);
  const prepared = guarded(store, statement, () => store.db.prepare(statement));
  if (store.readOnly) refuseWrites(prepared, statement);
  const used = new Set([...statement.matchAll(/[@:$]([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
  const bound = Object.fromEntries(
    Object.entries(parameters)
      .filter(([k]) => used.has(k))
      .map(([k, v]) => [k, sqlValue(v)]),
  );
  const parsed = new Set(['data', ...jsonColumns]);
  const parse = (row: Record<string, unknown>) => {
    for (const column of Object.keys(row)) {
      if (parsed.has(column) && typeof row[column] === 'string')
        row[column] = JSON.parse(row[column] as string);
    }
    return row;
  };
  if (!prepared.reader) {
    guarded(store, statement, () => prepared.run(bound));
    return resultType === 'records' ? [] : null;
  }
  if (resultType === 'records')
    return guarded(store, statement, () => prepared.all(bound) as Array<Record<string, unknown>>).map(parse);
  const first = guarded(store, statement, () => prepared.get(bound) as Record<string, unknown> | undefined);
  if (!first) return null;
  if (resultType === 'record') return parse(first);
  const [column] = Object.keys(first);
  return column === undefined ? null : parse(first)[column];
}

/**
 * Runs a step of a statement, turning SQLite's failures into coded errors: a statement SQLite
 * rejects (`SQLITE_ERROR`: syntax, unknown column; better-sqlite3's RangeError: no statement or
 * several) is QUERY_FAILED with the statement quoted; a database that is locked, damaged or not
 * SQLite at all is a DATABASE_* error.
 */
function guarded<T>(store: QueryStore, statement: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (error instanceof RangeError || code === 'SQLITE_ERROR' || code === 'SQLITE_RANGE') {
      const message = (error as Error).message.replace(/^The supplied SQL string /, 'it ');
      throw new QueryError(`SQLite rejected the statement ${excerpt(statement)}: ${message}`, {
        cause: error,
      });
    }
    if (code?.startsWith('SQLITE_')) throw databaseError(store.file, error);
    throw error;
  }
}

function excerpt(statement: string): string {
  const text = statement.trim().replace(/\s+/g, ' ');
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text);
}

/**
 * Only statements that read may run on a read-only store: SQLite says whether a prepared statement
 * returns rows (`reader`) and whether it writes the database (`readonly`). ATTACH and DETACH count as
 * read-only for SQLite (they change the connection, not the file) but return no rows, so `reader`
 * refuses them, with BEGIN, VACUUM INTO and every write; `DELETE ... RETURNING` reads but writes.
 * A PRAGMA that assigns (`PRAGMA x = y`) is refused too, even where SQLite calls it read-only.
 */
export function refuseWrites(prepared: Statement, statement: string): void {
  if (prepared.reader && prepared.readonly && !PRAGMA_ASSIGNMENT.test(withoutComments(statement))) return;
  throw new QueryNotReadOnlyError(
    `restfn query only reads, and ${excerpt(statement)} would change the database or attach another one; run SELECT (or WITH, VALUES, a reading PRAGMA), and change rows with 'restfn sync' or a function's operations`,
  );
}

const PRAGMA_ASSIGNMENT = /^\s*PRAGMA\b[^;]*=/i;

/** The statement without SQL comments, so a comment cannot hide the statement's first keyword. */
function withoutComments(statement: string): string {
  return statement.replace(/--[^\n]*|\/\*[\s\S]*?(\*\/|$)/g, ' ');
}
