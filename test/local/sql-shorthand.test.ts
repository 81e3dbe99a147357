import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { rewriteShorthand } from '../../src/local/sql-shorthand.js';

/** A real SQLite database (legacy double-quoted strings off, as restfn's) with two tables of JSON rows. */
function database() {
  const db = new Database(':memory:');
  db.unsafeMode(false);
  for (const table of ['default/orders', 'default/accounts']) {
    db.exec(`CREATE TABLE [${table}] (id TEXT PRIMARY KEY, data TEXT)`);
  }
  const insert = (table: string, row: Record<string, unknown>) =>
    db.prepare(`INSERT INTO [${table}] (id, data) VALUES (?, ?)`).run(String(row.id), JSON.stringify(row));
  insert('default/accounts', { id: 'a1', name: 'Acme', 'contact-title': 'CEO', address: { city: 'Oslo' } });
  insert('default/accounts', {
    id: 'a2',
    name: 'Birch',
    'contact-title': 'CTO',
    address: { city: 'Bergen' },
  });
  insert('default/orders', { id: 'o1', account: 'a1', amount: 10, status: 'open' });
  insert('default/orders', { id: 'o2', account: 'a1', amount: 5, status: 'done' });
  insert('default/orders', { id: 'o3', account: 'a2', amount: 7, status: 'open' });
  return db;
}

const TABLES = ['default/orders', 'default/accounts'];
const run = (sql: string, params: Record<string, unknown> = {}) =>
  database().prepare(rewriteShorthand(sql, TABLES).sql).all(params);

describe("the '$.path' shorthand", () => {
  test('a lone path as a result column is json_extract named after its last step', () => {
    const { sql } = rewriteShorthand("SELECT id, '$.name', '$.address.city' FROM [default/accounts]");
    expect(sql).toBe(
      "SELECT id, json_extract(data, '$.name') AS [name], json_extract(data, '$.address.city') AS [city] FROM [default/accounts]",
    );
    expect(run("SELECT id, '$.name', '$.address.city' FROM [default/accounts] ORDER BY id")).toEqual([
      { id: 'a1', name: 'Acme', city: 'Oslo' },
      { id: 'a2', name: 'Birch', city: 'Bergen' },
    ]);
  });

  test('a hyphenated step names its column as written', () => {
    expect(run("SELECT '$.contact-title' FROM [default/accounts] WHERE id = 'a1'")).toEqual([
      { 'contact-title': 'CEO' },
    ]);
  });

  test('a column the author names keeps that name (with AS or without)', () => {
    expect(
      run("SELECT '$.name' AS label, '$.address.city' town FROM [default/accounts] WHERE id = 'a2'"),
    ).toEqual([{ label: 'Birch', town: 'Bergen' }]);
  });

  test('inside an expression it is json_extract with no name: WHERE, ORDER BY, GROUP BY, function arguments', () => {
    const sql = `SELECT '$.account' AS account, SUM('$.amount') AS total, COUNT(1) AS n
      FROM [default/orders]
      WHERE ('$.status' = 'open' OR '$.amount' > @min)
      GROUP BY '$.account'
      ORDER BY '$.account' DESC`;
    expect(rewriteShorthand(sql).sql).toContain("SUM(json_extract(data, '$.amount')) AS total");
    expect(run(sql, { min: 6 })).toEqual([
      { account: 'a2', total: 7, n: 1 },
      { account: 'a1', total: 10, n: 1 },
    ]);
  });

  test('a concatenation starting with a path is an expression, not a named column', () => {
    const { sql } = rewriteShorthand("SELECT '$.name' || ' (' || '$.address.city' || ')' AS label FROM [t]");
    expect(sql).toBe(
      "SELECT json_extract(data, '$.name') || ' (' || json_extract(data, '$.address.city') || ')' AS label FROM [t]",
    );
    expect(
      run(
        "SELECT '$.name' || ' (' || '$.address.city' || ')' AS label FROM [default/accounts] WHERE id = 'a1'",
      ),
    ).toEqual([{ label: 'Acme (Oslo)' }]);
  });

  test("with a table alias, c.'$.x' reads that table's data", () => {
    const sql = `SELECT o.id, a.'$.name', o.'$.amount'
      FROM [default/orders] AS o JOIN [default/accounts] a ON o.'$.account' = a.id
      WHERE a . '$.name' LIKE '%' || @search || '%'
      ORDER BY o.'$.amount'`;
    expect(rewriteShorthand(sql).sql).toContain("json_extract(a.data, '$.name') AS [name]");
    expect(run(sql, { search: 'cm' })).toEqual([
      { id: 'o2', name: 'Acme', amount: 5 },
      { id: 'o1', name: 'Acme', amount: 10 },
    ]);
  });

  test('in a CTE and in the outer select', () => {
    const sql = `WITH totals AS (
        SELECT '$.account' AS account, '$.amount' FROM [default/orders]
      )
      SELECT account, SUM(amount) AS sum FROM totals GROUP BY account ORDER BY account`;
    expect(run(sql)).toEqual([
      { account: 'a1', sum: 15 },
      { account: 'a2', sum: 7 },
    ]);
  });

  test('a JSON function keeps its path argument; json_extract and the shorthand mix', () => {
    const sql = `SELECT json_extract(Data, '$.address.city') AS city, data ->> '$.name' AS n, '$.name'
      FROM [default/accounts] WHERE json_extract(data, '$.name') = 'Acme'`;
    const { sql: rewritten } = rewriteShorthand(sql);
    expect(rewritten).toContain("json_extract(Data, '$.address.city')");
    expect(rewritten).toContain("data ->> '$.name'");
    expect(run(sql)).toEqual([{ city: 'Oslo', n: 'Acme', name: 'Acme' }]);
  });

  test('left alone: a longer literal, a bare $, a name, a comment, a double-quoted path', () => {
    const sql = `SELECT 'costs $.5' AS a, '$' AS b, '$.x ' AS c, [$.y] AS d -- '$.z'
      /* '$.w' */ FROM [t]`;
    expect(rewriteShorthand(sql)).toMatchObject({ sql, changed: false });
  });

  test('a rewritten query points back at the text the author wrote', () => {
    const author = "SELECT '$.name', nope FROM [t]";
    const { sql, sourceOffset } = rewriteShorthand(author);
    expect(sourceOffset(sql.indexOf('nope'))).toBe(author.indexOf('nope'));
    expect(sourceOffset(sql.indexOf('json_extract'))).toBe(author.indexOf("'$.name'"));
  });
});

describe('double-quoted strings', () => {
  test('one that names no column is a string literal', () => {
    const sql = `SELECT '$.name' || "," || "it's" AS label FROM [default/accounts] WHERE id = "a1"`;
    expect(rewriteShorthand(sql).sql).toContain(`|| ',' || 'it''s' AS label`);
    expect(run(sql)).toEqual([{ label: "Acme,it's" }]);
  });

  test('one that names a column, an alias of the query or a table stays a name', () => {
    const sql = `WITH t AS (SELECT id, '$.amount' AS "total" FROM "default/orders")
      SELECT "id", "total", "t".total AS again FROM t WHERE "total" > 6 ORDER BY "id"`;
    const { sql: rewritten } = rewriteShorthand(sql, TABLES);
    expect(rewritten).toContain('SELECT "id", "total", "t".total');
    expect(run(sql)).toEqual([
      { id: 'o1', total: 10, again: 10 },
      { id: 'o3', total: 7, again: 7 },
    ]);
  });

  test('without the rewrite SQLite refuses them (so the rewrite is what makes them run)', () => {
    expect(() => database().prepare(`SELECT "," AS x FROM [default/orders]`).all()).toThrow(/no such column/);
  });
});
