import Database from 'better-sqlite3';
import { expect, test } from 'vitest';
import type { SqlDatabase } from '../../src/local/database.js';
import { DATABASE_CASES } from '../browser/database-cases.js';

// The conformance table on better-sqlite3: what the WebAssembly database (test/browser/
// wasm-database.test.ts) must give too. A case failing here means the table is wrong, not the engine.

test.each(DATABASE_CASES.map((c) => [c.name, c] as const))('better-sqlite3: %s', (_name, c) => {
  const db = new Database(':memory:');
  try {
    expect(c.run(db as unknown as SqlDatabase)).toEqual(c.expected);
  } finally {
    if (db.open) db.close();
  }
});
