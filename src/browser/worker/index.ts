// The browser client's worker side of the local database: what its worker entry imports.
export { type DatabaseFiles, DatabaseLease } from './database-lease.js';
export { type OpenedDatabase, openWasmDatabase } from './open-database.js';
export { SqliteError } from './sqlite-error.js';
export { WasmDatabase } from './wasm-database.js';
export { WasmStatement } from './wasm-statement.js';
