/**
 * The PostgreSQL schema: the same numbered migrations as SQLite's (`../sqlite/migrations.ts`), with
 * the same meaning, in PostgreSQL's dialect. Times stay ISO-8601 text as in SQLite, so both engines
 * compare and return them alike. `restfn_schema` records the last one applied. Never edit a
 * migration that shipped; add one.
 */
export const PG_MIGRATIONS: readonly string[] = [
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
     wrapped_key BYTEA NOT NULL,
     data BYTEA NOT NULL,
     updated TEXT NOT NULL,
     updated_by TEXT NOT NULL,
     PRIMARY KEY (solution, key)
   );
   CREATE TABLE audit (
     seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
  // 4: rate-limit counters, shared by the instances (one row per token or address and window).
  `CREATE TABLE rate_limits (
     key TEXT PRIMARY KEY,
     count INTEGER NOT NULL,
     reset_at BIGINT NOT NULL
   );
   CREATE INDEX rate_limits_by_reset ON rate_limits (reset_at);`,
  // 5: the id of the master key the credentials are sealed under, recorded at the first start, so
  // an instance with another key is refused even before any credential is stored.
  `CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // 6: versions' sizes (the per-solution quota), and retention: a removed version keeps its row
  // (who removed it, when, its digest) without its files.
  `ALTER TABLE versions ADD COLUMN size BIGINT;
   UPDATE versions SET size = octet_length(files);
   ALTER TABLE versions ALTER COLUMN size SET NOT NULL;
   ALTER TABLE versions ALTER COLUMN files DROP NOT NULL;
   ALTER TABLE versions ADD COLUMN removed TEXT;
   ALTER TABLE versions ADD COLUMN removed_by TEXT;`,
];
