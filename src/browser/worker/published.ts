import type { PlatformClient } from '../../client/platform-client.js';
import { RestfnError } from '../../errors/restfn-error.js';
import type { SqlDatabase } from '../../local/database.js';

// The published version the client runs: fetched from the platform when it answers, and kept in the
// client's database beside the tables, so a client created offline runs the version it last read.

const TABLE = '_restfn_published';

export interface PublishedVersion {
  readonly version: number;
  readonly files: Readonly<Record<string, string>>;
  /** Read from this device's copy: the platform did not answer. */
  readonly fromCache: boolean;
}

/**
 * The current version from the platform (its files fetched only when this device does not hold
 * that version yet), else the kept copy when the platform cannot be reached. A platform that
 * answers with an error (the solution unpublished, the token refused) is that error: running an
 * older copy would hide it.
 */
export async function publishedVersion(
  client: PlatformClient,
  solution: string,
  db: () => SqlDatabase,
): Promise<PublishedVersion> {
  const base = `/api/v1/solutions/${encodeURIComponent(solution)}`;
  let current: { version: number };
  try {
    current = await client.request<{ version: number }>('GET', base);
  } catch (error) {
    if ((error as { code?: string }).code !== 'SERVER_UNREACHABLE') throw error;
    const kept = keptVersion(db(), solution);
    if (kept) return { ...kept, fromCache: true };
    throw new RestfnError(
      'SERVER_UNREACHABLE',
      `the platform at ${client.url} cannot be reached and this device holds no copy of solution '${solution}' yet: open the app online once`,
    );
  }
  const kept = keptVersion(db(), solution);
  if (kept?.version === current.version) return { ...kept, fromCache: false };
  const { files } = await client.request<{ files: Record<string, string> }>(
    'GET',
    `${base}/versions/${current.version}`,
  );
  keep(db(), solution, current.version, files);
  return { version: current.version, files, fromCache: false };
}

function ensureTable(db: SqlDatabase): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (solution TEXT PRIMARY KEY, version INTEGER NOT NULL, files TEXT NOT NULL, fetched TEXT NOT NULL)`,
  );
}

function keptVersion(db: SqlDatabase, solution: string): Omit<PublishedVersion, 'fromCache'> | undefined {
  ensureTable(db);
  const row = db.prepare(`SELECT version, files FROM ${TABLE} WHERE solution = ?`).get(solution) as
    | { version: number; files: string }
    | undefined;
  return row ? { version: row.version, files: JSON.parse(row.files) } : undefined;
}

function keep(db: SqlDatabase, solution: string, version: number, files: Record<string, string>): void {
  ensureTable(db);
  db.prepare(
    `INSERT INTO ${TABLE} (solution, version, files, fetched) VALUES (?, ?, ?, ?)
     ON CONFLICT(solution) DO UPDATE SET version = excluded.version, files = excluded.files, fetched = excluded.fetched`,
  ).run(solution, version, JSON.stringify(files), new Date().toISOString());
}
