import type { SqlDatabase } from '../../local/database.js';

/**
 * The tables a query reads, from SQLite's own plan: `EXPLAIN` lists an `OpenRead` for each table (or
 * index) the statement opens, by root page, and sqlite_master names the table of each page. What a
 * live query (`client.watch`) re-runs on; views and subqueries resolve to their tables the same way.
 */
export function tablesRead(db: SqlDatabase, sql: string): string[] {
  const program = db.prepare(`EXPLAIN ${sql}`).raw().all() as unknown[][];
  const pages = new Set(program.filter((row) => row[1] === 'OpenRead').map((row) => Number(row[3])));
  if (pages.size === 0) return [];
  const objects = db
    .prepare('SELECT tbl_name, rootpage FROM sqlite_master WHERE rootpage > 0')
    .raw()
    .all() as Array<[string, number]>;
  return [...new Set(objects.filter(([, page]) => pages.has(Number(page))).map(([table]) => table))].sort();
}
