import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresCluster, startPostgres } from '../../scripts/pg-cluster.mjs';
import { PG_MIGRATIONS } from '../../src/platform/store/postgres/migrations.js';
import { PostgresPlatformStore } from '../../src/platform/store/postgres/store.js';
import { MIGRATIONS } from '../../src/platform/store/sqlite/migrations.js';
import { SqlitePlatformStore } from '../../src/platform/store/sqlite/store.js';
import type { StoreChange } from '../../src/platform/store/types.js';
import { storeContract } from './store-contract.js';

/** The storage contract on both engines: the embedded default and PostgreSQL for scale-out. */

storeContract('SQLite', {
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'restfn-store-'));
    const store = new SqlitePlatformStore(dir);
    return {
      store,
      reopen: async () => new SqlitePlatformStore(dir),
      async bumpSchema() {
        const db = new Database(join(dir, 'platform.db'));
        db.pragma('user_version = 999');
        db.close();
      },
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

storeContract('PostgreSQL', {
  async fresh() {
    const url = await cluster.createDatabase();
    const store = await PostgresPlatformStore.open(url);
    return {
      store,
      reopen: () => PostgresPlatformStore.open(url),
      async bumpSchema() {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query('UPDATE restfn_schema SET version = 999');
        await c.end();
      },
      dispose: () => store.close(),
    };
  },
});

describe('PostgreSQL: what only a networked engine has', () => {
  it('instances starting together on an empty database migrate it once', async () => {
    const url = await cluster.createDatabase();
    const stores = await Promise.all(Array.from({ length: 6 }, () => PostgresPlatformStore.open(url)));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query('SELECT version FROM restfn_schema');
    await c.end();
    expect(rows).toEqual([{ version: PG_MIGRATIONS.length }]);
    await stores[0]!.createUser({ id: 'u1', name: 'ada', role: 'admin', passwordHash: null, solutions: [] });
    expect(await stores[5]!.countAdmins()).toBe(1);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('instances starting together with different master keys: one key id is recorded, all of them read it', async () => {
    const url = await cluster.createDatabase();
    const stores = await Promise.all(Array.from({ length: 6 }, () => PostgresPlatformStore.open(url)));
    const recorded = await Promise.all(stores.map((s, i) => s.masterKeyId(`k${i}`)));
    expect(new Set(recorded).size).toBe(1);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('a database that cannot be reached is STORE_UNAVAILABLE, and the store recovers when it is back', async () => {
    const url = await cluster.createDatabase();
    const store = await PostgresPlatformStore.open(url);
    await store.createUser({ id: 'u1', name: 'ada', role: 'admin', passwordHash: null, solutions: [] });
    cluster.pause();
    try {
      await expect(store.userByName('ada')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(store.audit([])).resolves.toBeUndefined();
    } finally {
      cluster.resume();
    }
    expect(await store.userByName('ada')).toMatchObject({ id: 'u1' });
    await store.close();
  });

  it("one instance hears another's changes; after the database restarts, it hears that it may have missed some", async () => {
    const url = await cluster.createDatabase();
    const a = await PostgresPlatformStore.open(url);
    const b = await PostgresPlatformStore.open(url);
    const heard: StoreChange[] = [];
    b.onChange((change) => heard.push(change));
    // The LISTEN connection is up once a change made elsewhere arrives.
    await expect
      .poll(async () => {
        await a.addVersion('crm', { f: 'x' }, 'ada', 'd');
        return heard.some((c) => c.kind === 'version');
      })
      .toBe(true);
    expect(heard).toContainEqual({ kind: 'version', solution: 'crm' });
    await a.createUser({ id: 'u1', name: 'ada', role: 'admin', passwordHash: null, solutions: [] });
    await expect.poll(() => heard.some((c) => c.kind === 'access')).toBe(true);
    cluster.pause();
    cluster.resume();
    await expect.poll(() => heard.some((c) => c.kind === 'all'), { timeout: 20_000 }).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });

  it('a wrong address at start is STORE_UNAVAILABLE, not a crash', async () => {
    const url = new URL(cluster.url);
    url.port = '1';
    await expect(PostgresPlatformStore.open(url.toString())).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });
});

describe('migration 6: versions stored before it get their size and stay whole', () => {
  /** The version stored before migration 6 reads back whole, its size computed. */
  async function keptWithItsSize(
    store: Pick<SqlitePlatformStore, 'listVersions' | 'versionFiles' | 'close'>,
  ) {
    expect(await store.listVersions('crm')).toEqual([
      {
        solution: 'crm',
        version: 1,
        created: '2026-01-01T00:00:00.000Z',
        createdBy: 'ada',
        digest: 'd1',
        size,
      },
    ]);
    expect(await store.versionFiles('crm', 1)).toEqual(files);
    await store.close();
  }

  const files = { 'functions/a.platform': 'ü ✓ one' };
  const size = Buffer.byteLength(JSON.stringify(files));

  it('on SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restfn-store-'));
    try {
      const db = new Database(join(dir, 'platform.db'));
      for (const [i, migration] of MIGRATIONS.slice(0, 5).entries()) {
        db.exec(migration);
        db.pragma(`user_version = ${i + 1}`);
      }
      db.prepare(
        'INSERT INTO versions (solution, version, created, created_by, digest, files) VALUES (?, 1, ?, ?, ?, ?)',
      ).run('crm', '2026-01-01T00:00:00.000Z', 'ada', 'd1', JSON.stringify(files));
      db.close();
      await keptWithItsSize(new SqlitePlatformStore(dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on PostgreSQL', async () => {
    const url = await cluster.createDatabase();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    for (const migration of PG_MIGRATIONS.slice(0, 5)) await c.query(migration);
    await c.query(
      'CREATE TABLE restfn_schema (version INTEGER NOT NULL); INSERT INTO restfn_schema VALUES (5)',
    );
    await c.query(
      'INSERT INTO versions (solution, version, created, created_by, digest, files) VALUES ($1, 1, $2, $3, $4, $5)',
      ['crm', '2026-01-01T00:00:00.000Z', 'ada', 'd1', JSON.stringify(files)],
    );
    await c.end();
    await keptWithItsSize(await PostgresPlatformStore.open(url));
  });
});
