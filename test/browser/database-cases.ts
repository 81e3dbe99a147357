import type { SqlDatabase } from '../../src/local/database.js';
import { controlsTransaction, guarded } from '../../src/local/statement-checks.js';

// The conformance table of `SqlDatabase`: each case runs on a fresh in-memory database and returns
// what it saw, compared with `expected`. test/local/database-conformance.test.ts runs it on
// better-sqlite3 in Node, test/browser/wasm-database.test.ts on the WebAssembly database in a
// worker in Chromium: the same expectations, so the two engines agree on what src/local relies on.

export interface DatabaseCase {
  readonly name: string;
  readonly run: (db: SqlDatabase) => unknown;
  readonly expected: unknown;
}

/** What a step gave, comparable across engines and through structured clone. */
export function outcome(step: () => unknown): unknown {
  try {
    return plain(step());
  } catch (error) {
    return thrown(error);
  }
}

function thrown(error: unknown): unknown {
  const e = error as Error & { code?: string };
  return { threw: e.name, ...(e.code ? { code: e.code } : {}), message: e.message };
}

function plain(value: unknown): unknown {
  if (value === undefined) return '<undefined>';
  if (value instanceof Uint8Array) return { blob: Array.from(value) };
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

const T = 'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL, data JSON UNIQUE)';

const rows = (db: SqlDatabase) => db.prepare('SELECT id, n FROM t ORDER BY id').all();

export const DATABASE_CASES: readonly DatabaseCase[] = [
  {
    name: 'run gives changes and lastInsertRowid; DDL changes nothing',
    run: (db) => [
      outcome(() => db.prepare(T).run()),
      outcome(() => db.prepare('INSERT INTO t (id, n) VALUES (?, ?), (?, ?)').run('a', 1, 'b', 2)),
      outcome(() => db.prepare('UPDATE t SET n = n + 1 WHERE id = ?').run('zz')),
      outcome(() => db.prepare('UPDATE t SET n = n + 1').run()),
    ],
    expected: [
      { changes: 0, lastInsertRowid: 0 },
      { changes: 2, lastInsertRowid: 2 },
      { changes: 0, lastInsertRowid: 2 },
      { changes: 2, lastInsertRowid: 2 },
    ],
  },
  {
    name: 'get gives the first row or undefined; all every row; raw arrays and back',
    run: (db) => {
      db.exec(`${T}; INSERT INTO t (id, n) VALUES ('a', 1), ('b', 2)`);
      const select = db.prepare('SELECT id, n, n * 1.5 AS x FROM t ORDER BY id');
      return [
        outcome(() => select.get()),
        outcome(() => db.prepare('SELECT id FROM t WHERE id = ?').get('none')),
        outcome(() => select.all()),
        outcome(() => select.raw().all()),
        outcome(() => select.raw(false).get()),
      ];
    },
    expected: [
      { id: 'a', n: 1, x: 1.5 },
      '<undefined>',
      [
        { id: 'a', n: 1, x: 1.5 },
        { id: 'b', n: 2, x: 3 },
      ],
      [
        ['a', 1, 1.5],
        ['b', 2, 3],
      ],
      { id: 'a', n: 1, x: 1.5 },
    ],
  },
  {
    name: 'reader and readonly as SQLite reports them',
    run: (db) => {
      db.exec(T);
      return [
        'SELECT 1',
        'INSERT INTO t (id, n) VALUES (1, 1)',
        'DELETE FROM t RETURNING id',
        'BEGIN',
        'BEGIN IMMEDIATE',
        "ATTACH ':memory:' AS other",
        'PRAGMA user_version',
        'CREATE TABLE u (x)',
      ].map((sql) => {
        const s = db.prepare(sql);
        return { sql, reader: s.reader, readonly: s.readonly };
      });
    },
    expected: [
      { sql: 'SELECT 1', reader: true, readonly: true },
      { sql: 'INSERT INTO t (id, n) VALUES (1, 1)', reader: false, readonly: false },
      { sql: 'DELETE FROM t RETURNING id', reader: true, readonly: false },
      { sql: 'BEGIN', reader: false, readonly: true },
      { sql: 'BEGIN IMMEDIATE', reader: false, readonly: false },
      { sql: "ATTACH ':memory:' AS other", reader: false, readonly: true },
      { sql: 'PRAGMA user_version', reader: true, readonly: true },
      { sql: 'CREATE TABLE u (x)', reader: false, readonly: false },
    ],
  },
  {
    name: 'prepare takes one statement: several or none is a RangeError, trailing comments are fine',
    run: (db) =>
      [
        'SELECT 1; SELECT 2',
        '',
        '  ;  -- nothing',
        'SELECT 1; -- one\n/* two */ ;;  ',
        'SELECT 1 AS one /* open comment',
        "SELECT 'é☃😀' AS s; -- the end: byte offsets past multi-byte text",
        "SELECT 'é☃😀' AS s; SELECT 2",
      ].map((sql) => outcome(() => db.prepare(sql).get())),
    expected: [
      { threw: 'RangeError', message: 'The supplied SQL string contains more than one statement' },
      { threw: 'RangeError', message: 'The supplied SQL string contains no statements' },
      { threw: 'RangeError', message: 'The supplied SQL string contains no statements' },
      { 1: 1 },
      { one: 1 },
      { s: 'é☃😀' },
      { threw: 'RangeError', message: 'The supplied SQL string contains more than one statement' },
    ],
  },
  {
    name: "SQLite's failures carry better-sqlite3's codes, extended ones included",
    run: (db) => {
      db.exec(`${T}; INSERT INTO t (id, n, data) VALUES ('a', 1, '{}')`);
      return [
        outcome(() => db.prepare('SELEC 1')),
        outcome(() => db.prepare('SELECT nope FROM t')),
        outcome(() => db.prepare("INSERT INTO t (id, n) VALUES ('a', 2)").run()),
        outcome(() => db.prepare("INSERT INTO t (id, n) VALUES ('b', NULL)").run()),
        outcome(() => db.prepare("INSERT INTO t (id, n, data) VALUES ('c', 3, '{}')").run()),
        outcome(() => db.exec("CREATE TABLE v (x); INSERT INTO t (id, n) VALUES ('a', 1)")),
        outcome(() => db.prepare('SELECT name FROM sqlite_master ORDER BY name').all()),
      ];
    },
    expected: [
      { threw: 'SqliteError', code: 'SQLITE_ERROR', message: 'near "SELEC": syntax error' },
      { threw: 'SqliteError', code: 'SQLITE_ERROR', message: 'no such column: nope' },
      {
        threw: 'SqliteError',
        code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
        message: 'UNIQUE constraint failed: t.id',
      },
      { threw: 'SqliteError', code: 'SQLITE_CONSTRAINT_NOTNULL', message: 'NOT NULL constraint failed: t.n' },
      { threw: 'SqliteError', code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: t.data' },
      {
        threw: 'SqliteError',
        code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
        message: 'UNIQUE constraint failed: t.id',
      },
      [{ name: 'sqlite_autoindex_t_1' }, { name: 'sqlite_autoindex_t_2' }, { name: 't' }, { name: 'v' }],
    ],
  },
  {
    name: 'named parameters: @, : and $ from one object without the prefix; mixed with positional',
    run: (db) => [
      outcome(() => db.prepare('SELECT @a AS a, :b AS b, $c AS c').get({ a: 1, b: 'two', c: null })),
      outcome(() => db.prepare('SELECT ? AS p, @a AS a, ? AS q').get('x', { a: 'named' }, 'y')),
      outcome(() => db.prepare('SELECT @a AS a, @b AS b').get({ a: 1 })),
      outcome(() => db.prepare('SELECT @a AS a').get({ a: 1 }, { a: 2 })),
      outcome(() => db.prepare('SELECT @a AS a').get()),
      outcome(() => db.prepare('SELECT ?2 AS two, ?1 AS one').get({ 1: 'one', 2: 'two' })),
    ],
    expected: [
      { a: 1, b: 'two', c: null },
      { p: 'x', a: 'named', q: 'y' },
      { threw: 'RangeError', message: 'Missing named parameter "b"' },
      { threw: 'TypeError', message: 'You cannot specify named parameters in two different objects' },
      { threw: 'TypeError', message: 'Missing named parameters' },
      { two: 'two', one: 'one' },
    ],
  },
  {
    name: 'positional parameters: spread or arrays; too few or too many is a RangeError',
    run: (db) => [
      outcome(() => db.prepare('SELECT ? AS a, ? AS b, ? AS c').get(1, [2, 3])),
      outcome(() => db.prepare('SELECT ? AS a, ? AS b').get(1)),
      outcome(() => db.prepare('SELECT ? AS a').get(1, 2)),
      outcome(() => db.prepare('SELECT 1 AS a').get(1)),
    ],
    expected: [
      { a: 1, b: 2, c: 3 },
      { threw: 'RangeError', message: 'Too few parameter values were provided' },
      { threw: 'RangeError', message: 'Too many parameter values were provided' },
      { threw: 'RangeError', message: 'Too many parameter values were provided' },
    ],
  },
  {
    name: 'values: numbers bound as REAL, bigint INTEGER, bytes BLOB, undefined NULL; booleans refused',
    run: (db) => [
      outcome(() => db.prepare('SELECT typeof(?) AS t, json_array(?) AS j').get(1, 1)),
      outcome(() => db.prepare('SELECT typeof(?) AS t, ? + 1 AS v').get(5n, 5n)),
      outcome(() => db.prepare('SELECT typeof(?) AS t, ? AS v').get('text', 'text')),
      outcome(() =>
        db
          .prepare('SELECT typeof(?) AS t, ? AS v')
          .get(new Uint8Array([1, 2, 255]), new Uint8Array([1, 2, 255])),
      ),
      outcome(() => db.prepare('SELECT typeof(?) AS t, ? AS v').get(null, undefined)),
      outcome(() => db.prepare('SELECT ? AS v').get(true)),
      outcome(() => db.prepare('SELECT ? AS v').get(new Date(0))),
      outcome(() => db.prepare('SELECT @v AS v').get(new Date(0))),
      outcome(() => db.prepare("SELECT 9007199254740993 AS big, -5 AS neg, x'00ff' AS b").get()),
    ],
    expected: [
      { t: 'real', j: '[1.0]' },
      { t: 'integer', v: 6 },
      { t: 'text', v: 'text' },
      { t: 'blob', v: { blob: [1, 2, 255] } },
      { t: 'null', v: null },
      { threw: 'TypeError', message: 'SQLite3 can only bind numbers, strings, bigints, buffers, and null' },
      { threw: 'TypeError', message: 'SQLite3 can only bind numbers, strings, bigints, buffers, and null' },
      { threw: 'TypeError', message: 'Named parameters can only be passed within plain objects' },
      { big: 9007199254740992, neg: -5, b: { blob: [0, 255] } },
    ],
  },
  {
    name: 'a transaction commits, or rolls back and throws; the wrapper passes arguments and returns',
    run: (db) => {
      db.exec(T);
      const insert = db.prepare('INSERT INTO t (id, n) VALUES (?, ?)');
      const add = db.transaction((id: string, n: number) => {
        insert.run(id, n);
        return `added ${id}`;
      });
      const failing = db.transaction(() => {
        insert.run('x', 1);
        throw new Error('no');
      });
      return [outcome(() => add('a', 1)), outcome(() => failing()), outcome(() => rows(db))];
    },
    expected: ['added a', { threw: 'Error', message: 'no' }, [{ id: 'a', n: 1 }]],
  },
  {
    name: 'nested transactions are savepoints: an inner failure rolls back the inner part only',
    run: (db) => {
      db.exec(T);
      const insert = db.prepare('INSERT INTO t (id, n) VALUES (?, ?)');
      const inner = db.transaction((id: string) => {
        insert.run(id, 2);
        throw new Error('inner failed');
      });
      const outer = db.transaction(() => {
        insert.run('outer', 1);
        const caught = outcome(() => inner('inner'));
        insert.run('after', 3);
        return caught;
      });
      const failingOuter = db.transaction(() => {
        db.transaction(() => insert.run('nested-ok', 4))();
        insert.run('outer', 5);
      });
      return [outcome(() => outer()), outcome(() => failingOuter()), outcome(() => rows(db))];
    },
    expected: [
      { threw: 'Error', message: 'inner failed' },
      {
        threw: 'SqliteError',
        code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
        message: 'UNIQUE constraint failed: t.id',
      },
      [
        { id: 'after', n: 3 },
        { id: 'outer', n: 1 },
      ],
    ],
  },
  {
    name: "a registered function: arity from fn.length, numbers REAL, its exception the statement's",
    run: (db) => {
      db.function('merge2', { deterministic: true }, (a: unknown, b: unknown) =>
        JSON.stringify({ ...JSON.parse(String(a)), ...JSON.parse(String(b)) }),
      );
      db.function('twice', { deterministic: true }, (n: unknown) => (n as number) * 2);
      db.function('kind', {}, (v: unknown) => (v instanceof Uint8Array ? 'bytes' : typeof v));
      db.function('boom', {}, () => {
        throw new RangeError('boom from js');
      });
      db.function('bad', {}, () => true as unknown as string);
      return [
        outcome(() => db.prepare(`SELECT merge2('{"a":1}', '{"b":2}') AS m`).get()),
        outcome(() => db.prepare('SELECT twice(21) AS v, typeof(twice(21)) AS t').get()),
        outcome(() =>
          db
            .prepare("SELECT kind(1) AS i, kind(1.5) AS r, kind('s') AS s, kind(x'01') AS b, kind(NULL) AS n")
            .get(),
        ),
        outcome(() => db.prepare('SELECT merge2(1) AS m').get()),
        outcome(() => db.prepare('SELECT boom() AS v').get()),
        outcome(() => db.prepare('SELECT bad() AS v').get()),
      ];
    },
    expected: [
      { m: '{"a":1,"b":2}' },
      { v: 42, t: 'real' },
      { i: 'number', r: 'number', s: 'string', b: 'bytes', n: 'object' },
      {
        threw: 'SqliteError',
        code: 'SQLITE_ERROR',
        message: 'wrong number of arguments to function merge2()',
      },
      { threw: 'RangeError', message: 'boom from js' },
      { threw: 'TypeError', message: 'User-defined function bad() returned an invalid value' },
    ],
  },
  {
    name: 'pragma: rows, or with simple the first value; an assignment returns what SQLite returns',
    run: (db) => {
      db.exec(T);
      return [
        outcome(() => db.pragma('user_version = 7')),
        outcome(() => db.pragma('user_version', { simple: true })),
        outcome(() => db.pragma('user_version')),
        outcome(() => (db.pragma('table_info(t)') as unknown[]).length),
        outcome(() => db.pragma('synchronous = NORMAL', { simple: true })),
      ];
    },
    expected: [[], 7, [{ user_version: 7 }], 3, '<undefined>'],
  },
  {
    name: 'get and all need a statement that returns data; raw too',
    run: (db) => {
      db.exec(T);
      const insert = db.prepare("INSERT INTO t (id, n) VALUES ('a', 1)");
      return [outcome(() => insert.get()), outcome(() => insert.all()), outcome(() => insert.raw())];
    },
    expected: [
      { threw: 'TypeError', message: 'This statement does not return data. Use run() instead' },
      { threw: 'TypeError', message: 'This statement does not return data. Use run() instead' },
      { threw: 'TypeError', message: 'The raw() method is only for statements that return data' },
    ],
  },
  {
    name: "src/local's statement checks: EXPLAIN in raw rows, SQLite's refusals coded",
    run: (db) => [
      controlsTransaction(db, 'BEGIN IMMEDIATE'),
      controlsTransaction(db, 'SAVEPOINT x'),
      controlsTransaction(db, 'SELECT 1'),
      controlsTransaction(db, 'SELECT 1; SELECT 2'),
      outcome(() => guarded({ file: 'f.db' }, 'SELEC', () => db.prepare('SELEC'))),
      outcome(() => guarded({ file: 'f.db' }, 'two', () => db.prepare('SELECT 1; SELECT 2'))),
    ],
    expected: [
      true,
      true,
      false,
      false,
      {
        threw: 'QueryError',
        code: 'QUERY_FAILED',
        message: 'SQLite rejected the statement "SELEC": near "SELEC": syntax error',
      },
      {
        threw: 'QueryError',
        code: 'QUERY_FAILED',
        message: 'SQLite rejected the statement "two": it contains more than one statement',
      },
    ],
  },
  {
    name: 'after close, the database is not open',
    run: (db) => {
      const select = db.prepare('SELECT 1 AS one');
      db.close();
      return [outcome(() => db.prepare('SELECT 1')), outcome(() => select.get())];
    },
    expected: [
      { threw: 'TypeError', message: 'The database connection is not open' },
      { threw: 'TypeError', message: 'The database connection is not open' },
    ],
  },
];
