import { type OpenedDatabase, openWasmDatabase } from '../../../src/browser/worker/open-database.js';
import { loadSqlite } from '../../../src/browser/worker/sqlite-api.js';
import { WasmDatabase } from '../../../src/browser/worker/wasm-database.js';
import { CommandQueue } from '../../../src/local/command-queue.js';
import type { SqlStatement } from '../../../src/local/database.js';
import { LocalStore } from '../../../src/local/store.js';
import { DATABASE_CASES, outcome } from '../database-cases.js';

// The test page's dedicated worker: what wasm-database.test.ts asks the page for, run on the
// WebAssembly database as the browser client's worker runs it.

let opened: OpenedDatabase | undefined;
let kept: SqlStatement | undefined;

function lease() {
  if (!opened) throw new Error('open first');
  return opened.lease;
}

/** Lets other tasks (the other tab's messages, lock grants) run: an await inside an operation. */
const yieldTask = () => new Promise((resolve) => setTimeout(resolve, 0));

const ops: Record<string, (...args: never[]) => unknown> = {
  async conformance() {
    const api = await loadSqlite();
    return DATABASE_CASES.map((c) => {
      const db = new WasmDatabase(api, ':memory:', new api.oo1.DB(':memory:', 'c'));
      try {
        const result = outcome(() => c.run(db));
        // One case's odd result must not hide the others' (postMessage would refuse them all).
        return { name: c.name, result: cloneable(result) ? result : { notCloneable: String(result) } };
      } finally {
        if (db.open) db.close();
      }
    });
  },

  /**
   * Statements prepared and dropped by their callers: how many the connection still has, then how
   * many after the connection was detached (as at a hand-over) and closed.
   */
  async finalized(count: number) {
    const api = await loadSqlite();
    const connection = new api.oo1.DB(':memory:', 'c');
    const db = new WasmDatabase(api, ':memory:', connection);
    const live = () => {
      let n = 0;
      for (
        let s = api.capi.sqlite3_next_stmt(connection.pointer as number, 0);
        s;
        s = api.capi.sqlite3_next_stmt(connection.pointer as number, s)
      )
        n++;
      return n;
    };
    for (let i = 0; i < count; i++) db.prepare(`SELECT ${i} AS n`).get();
    const before = live();
    db.detach();
    const after = live();
    connection.close();
    return { before, after };
  },

  async open(name: string) {
    opened = await openWasmDatabase({ name });
    const journalMode = await lease().run((db) => db.pragma('journal_mode', { simple: true }));
    return { persistent: opened.persistent, reason: opened.reason, journalMode };
  },

  /** As `open`, in a worker whose navigator has no OPFS (an old browser, a private window). */
  openWithoutOpfs(name: string) {
    Object.defineProperty((globalThis as unknown as { navigator: object }).navigator, 'storage', {
      value: undefined,
      configurable: true,
    });
    return ops.open?.(name as never);
  },

  /** Uses the database without the lease (a bug in a caller): refused while another tab holds it. */
  outside: () => lease().database.prepare('SELECT 1').get(),

  exec: (sql: string) => lease().run((db) => void db.exec(sql)),

  all: (sql: string, params: unknown[] = []) => lease().run((db) => db.prepare(sql).all(...params)),

  generation: () => lease().database.generation,

  /** `times` operations that each read, await, then write what they read plus one. */
  async counter(tab: string, times: number) {
    for (let i = 0; i < times; i++) {
      await lease().run(async (db) => {
        const { m } = db.prepare('SELECT coalesce(max(n), 0) AS m FROM items').get() as { m: number };
        await yieldTask();
        db.prepare('INSERT INTO items (tab, n) VALUES (?, ?)').run(tab, m + 1);
      });
    }
    return lease().database.generation;
  },

  /** Prepares a statement kept for later, and gives the connection a function and a setting. */
  keep: (sql: string) =>
    lease().run((db) => {
      kept = db.prepare(sql);
      db.function('tab_name', { deterministic: true }, () => 'a');
      db.pragma('cache_size = 777');
    }),

  connectionState: () =>
    lease().run((db) => ({
      cacheSize: db.pragma('cache_size', { simple: true }),
      fn: db.prepare('SELECT tab_name() AS t').get(),
    })),

  runKept: (params: unknown[]) => lease().run(() => kept?.run(...params)),

  /** The real LocalStore and CommandQueue of src/local on the leased database. */
  local: () =>
    lease().run((db) => {
      const store = new LocalStore('restfn.db', { database: db });
      store.ensureTable('customers');
      store
        .statement('INSERT OR REPLACE INTO [customers] (id, data) VALUES (?, ?)')
        .run('c-007', JSON.stringify({ id: 'c-007', name: 'Ada' }));
      const queue = new CommandQueue(db, () => '2026-11-28T00:00:00.000Z');
      queue.add({
        id: 'cmd-1',
        type: 'update',
        entity: 'customers',
        record: 'c-007',
        function: 'update-customer',
        payload: { parameters: { name: 'Ada' } },
      });
      return {
        rows: store.rows('customers'),
        queue: queue.list().map((c) => ({ id: c.id, type: c.type, state: c.state, payload: c.payload })),
        merged: db.prepare(`SELECT restfn_merge('{"a":1,"b":1}', '{"b":2}') AS m`).get(),
        journalMode: db.pragma('journal_mode', { simple: true }),
      };
    }),

  close: () => lease().close(),
};

function cloneable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

const scope = globalThis as unknown as {
  onmessage: (event: MessageEvent) => void;
  postMessage(message: unknown): void;
};

scope.onmessage = async (event: MessageEvent) => {
  const { id, op, args } = event.data as { id: number; op: string; args: never[] };
  try {
    const handler = ops[op];
    if (!handler) throw new Error(`unknown op ${op}`);
    scope.postMessage({ id, value: await handler(...args) });
  } catch (error) {
    const e = error as Error & { code?: string };
    const message = `${e?.code ?? e?.name}: ${e?.message ?? error}`;
    scope.postMessage({ id, error: { name: e?.name, message, code: e?.code } });
  }
};
