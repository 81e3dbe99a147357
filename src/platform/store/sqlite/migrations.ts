/**
 * The SQLite schema, as numbered migrations: each runs once, in order, in its own transaction, and
 * `PRAGMA user_version` records the last one applied. A migration is never edited after it shipped;
 * a change is a new one. (PostgreSQL gets its own list with the same numbers and meaning.)
 */
export const MIGRATIONS: readonly string[] = [
  // 1: users, tokens, published versions, credentials, audit.
  `CREATE TABLE users (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     role TEXT NOT NULL CHECK (role IN ('admin', 'author', 'user')),
     password_hash TEXT,
     created TEXT NOT NULL
   );
   CREATE TABLE memberships (
     user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
     solution TEXT NOT NULL,
     PRIMARY KEY (user_id, solution)
   );
   CREATE TABLE tokens (
     id TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     created TEXT NOT NULL,
     revoked TEXT
   );
   CREATE TABLE versions (
     solution TEXT NOT NULL,
     version INTEGER NOT NULL,
     created TEXT NOT NULL,
     created_by TEXT NOT NULL,
     digest TEXT NOT NULL,
     files TEXT NOT NULL,
     PRIMARY KEY (solution, version)
   );
   CREATE TABLE credentials (
     solution TEXT NOT NULL,
     key TEXT NOT NULL,
     kind TEXT NOT NULL,
     meta TEXT NOT NULL,
     key_id TEXT NOT NULL,
     wrapped_key BLOB NOT NULL,
     data BLOB NOT NULL,
     updated TEXT NOT NULL,
     updated_by TEXT NOT NULL,
     PRIMARY KEY (solution, key)
   );
   CREATE TABLE audit (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     at TEXT NOT NULL,
     actor TEXT NOT NULL,
     solution TEXT,
     action TEXT NOT NULL,
     target TEXT,
     outcome TEXT NOT NULL,
     correlation_id TEXT,
     duration_ms INTEGER
   );
   CREATE INDEX audit_by_solution ON audit (solution, seq);`,
  // 2: console sessions (cookie value hashed; its CSRF token beside it).
  `CREATE TABLE sessions (
     hash TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
     csrf_token TEXT NOT NULL,
     created TEXT NOT NULL,
     expires TEXT NOT NULL
   );
   CREATE INDEX sessions_by_expiry ON sessions (expires);`,
  // 3: what a failed execution said (its masked message, title, description), for the console.
  `ALTER TABLE audit ADD COLUMN detail TEXT;`,
  // 4: rate-limit counters. One process holds this file, so they stay in its memory (PostgreSQL's
  // 4 is a table, shared by the instances); the number is kept so both lists mean the same.
  `SELECT 1;`,
  // 5: the id of the master key the credentials are sealed under, recorded at the first start, so
  // a start with another key is refused even before any credential is stored.
  `CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // 6: versions' sizes (the per-solution quota), and retention: a removed version keeps its row
  // (who removed it, when, its digest) without its files. SQLite cannot drop a NOT NULL, so the
  // table is made again.
  `CREATE TABLE versions_6 (
     solution TEXT NOT NULL,
     version INTEGER NOT NULL,
     created TEXT NOT NULL,
     created_by TEXT NOT NULL,
     digest TEXT NOT NULL,
     files TEXT,
     size INTEGER NOT NULL,
     removed TEXT,
     removed_by TEXT,
     PRIMARY KEY (solution, version)
   );
   INSERT INTO versions_6 (solution, version, created, created_by, digest, files, size)
     SELECT solution, version, created, created_by, digest, files, length(CAST(files AS BLOB)) FROM versions;
   DROP TABLE versions;
   ALTER TABLE versions_6 RENAME TO versions;`,
];
