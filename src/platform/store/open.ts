import type { PlatformStore } from './types.js';

export const DATABASE_URL_ENV = 'RESTFN_DATABASE_URL';

/**
 * The platform's store: PostgreSQL when a database URL is given (several instances share it),
 * else the embedded SQLite file in the data folder (one process, no other service). The driver of
 * the engine not used is never loaded.
 */
export async function openStore(dataDir: string, databaseUrl: string | undefined): Promise<PlatformStore> {
  if (databaseUrl) {
    const { PostgresPlatformStore } = await import('./postgres/store.js');
    return PostgresPlatformStore.open(databaseUrl);
  }
  const { SqlitePlatformStore } = await import('./sqlite/store.js');
  return new SqlitePlatformStore(dataDir);
}
