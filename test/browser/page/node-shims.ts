import type { SqlDatabase } from '../../../src/local/database.js';

// Test-only stand-ins for the Node modules src/local/store.ts reaches, so the real LocalStore runs
// in the test worker on the WebAssembly database (see wasm-page.ts). What each stands for is what
// the browser build needs from the lead's `X.browser.ts` siblings: LocalStore opening a database it
// is given instead of a file path, no file permissions, no process ids.

let next: SqlDatabase | undefined;

/** The database the next `new LocalStore(...)` gets (it stands for src/local/sqlite.ts's openDatabase). */
export function provideDatabase(db: SqlDatabase): void {
  next = db;
}

export function openDatabase(): SqlDatabase {
  if (!next) throw new Error('node-shims: no database provided');
  return next;
}

export class SqliteUnavailableError extends Error {}

export function nativeLoadFailure(): boolean {
  return false;
}

export function privateFile(): void {}

export function privateFolder(): void {}

export function processAlive(): boolean {
  return true;
}

export function randomUUID(): string {
  return crypto.randomUUID();
}
