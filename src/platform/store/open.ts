import { UsageError } from '../../errors/restfn-error.js';
import type { PlatformStore } from './types.js';

export const DATABASE_URL_ENV = 'RESTFN_DATABASE_URL';

/**
 * The platform's store: PostgreSQL when a database URL is given (several instances share it),
 * else the embedded SQLite file in the data folder (one process, no other service). The driver of
 * the engine not used is never loaded.
 */
export async function openStore(dataDir: string, databaseUrl: string | undefined): Promise<PlatformStore> {
  if (databaseUrl) {
    checkDatabaseUrl(databaseUrl);
    const { PostgresPlatformStore } = await import('./postgres/store.js');
    return PostgresPlatformStore.open(databaseUrl);
  }
  const { SqlitePlatformStore } = await import('./sqlite/store.js');
  return new SqlitePlatformStore(dataDir);
}

/**
 * A database URL must be a postgres:// (or postgresql://) URL; the error never repeats it, as it
 * holds the password.
 */
function checkDatabaseUrl(databaseUrl: string): void {
  const usage = `write it as postgres://USER:PASSWORD@HOST:5432/DATABASE (in ${DATABASE_URL_ENV}, or --database)`;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new UsageError(`the database URL is not a valid URL: ${usage}`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(`the database URL is not a PostgreSQL URL (postgres:// or postgresql://): ${usage}`);
  }
}
