import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LocalStore } from '../../src/local/store.js';
import { runCli } from '../helpers/cli.js';
import { seed } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

/** A solution with a synced-looking database: table `items` holding two rows. */
function solutionWithRows() {
  const root = tempSolution({
    'solution.yaml': 'name: q\n',
    // A table the solution fills (none synced yet): it reads as empty.
    'datasources/later.platform':
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: never-synced\n      function: rest-get-later\n',
  });
  const db = join(root, '.restfn', 'local.db');
  const store = new LocalStore(db);
  seed(store, 'items', [{ id: 'a' }, { id: 'b' }]);
  store.close();
  return { root, db };
}

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('restfn query reads only', () => {
  test('statements that would write, attach or set a pragma are refused; the file stays byte for byte', async () => {
    const { root, db } = solutionWithRows();
    const before = digest(db);
    const attached = join(root, 'attached.db');
    const vacuumed = join(root, 'copy.db');
    const refused = [
      'DELETE FROM [items]',
      "INSERT INTO [items] (id, data) VALUES ('c', '{}')",
      'DELETE FROM [items] RETURNING id',
      'DROP TABLE [items]',
      `ATTACH '${attached}' AS other`,
      'DETACH other',
      `VACUUM INTO '${vacuumed}'`,
      'PRAGMA user_version = 7',
      '/* hidden */ PRAGMA locking_mode = EXCLUSIVE',
      'CREATE TEMP TABLE t (x)',
      'BEGIN IMMEDIATE',
    ];
    for (const sql of refused) {
      const r = await runCli(['query', sql], { cwd: root });
      expect(r.code, `${sql}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/^restfn: error QUERY_NOT_READ_ONLY: restfn query only reads/m);
      expect(r.stdout).toBe('');
    }
    expect(existsSync(attached)).toBe(false);
    expect(existsSync(vacuumed)).toBe(false);
    expect(digest(db)).toBe(before);
    const rows = await runCli(['query', 'SELECT id FROM [items] ORDER BY id'], { cwd: root });
    expect(JSON.parse(rows.stdout)).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  test('reading statements still work: WITH, VALUES, a reading PRAGMA, a table never synced reads empty', async () => {
    const { root, db } = solutionWithRows();
    const before = digest(db);
    const cli = async (sql: string) => JSON.parse((await runCli(['query', sql], { cwd: root })).stdout);
    expect(await cli('WITH n AS (SELECT count(*) AS c FROM [items]) SELECT c FROM n')).toEqual([{ c: 2 }]);
    expect(await cli('VALUES (1)')).toEqual([{ column1: 1 }]);
    expect((await cli('PRAGMA table_info([items])')).map((c: { name: string }) => c.name)).toEqual([
      'id',
      'data',
    ]);
    expect(await cli('SELECT * FROM [never-synced]')).toEqual([]);
    expect(digest(db)).toBe(before);
  });

  test('a table the solution does not have, or a name that is no datasource, is a typo: said with the closest', async () => {
    const { root } = solutionWithRows();
    const typo = await runCli(['query', 'select count(*) n from [itmes]'], { cwd: root });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("QUERY_INVALID: no table 'itmes' in this solution (did you mean 'items'?)");
    const bare = await runCli(['query', 'latr'], { cwd: root });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("DATASOURCE_NOT_FOUND: no datasource 'latr' (did you mean 'later'?)");
  });

  test('a database that does not exist is an error, never a new empty file', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: q\n' });
    const typo = join(root, 'lcoal.db');
    const r = await runCli(['query', 'SELECT 1', '--db', typo], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `restfn: error DATABASE_NOT_FOUND: no local database at ${typo}: check the --db path\n`,
    );
    expect(existsSync(typo)).toBe(false);
    const unsynced = await runCli(['query', 'SELECT 1'], { cwd: root });
    expect(unsynced.code).toBe(2);
    expect(unsynced.stderr).toContain('DATABASE_NOT_FOUND: no local database at');
    expect(unsynced.stderr).toContain("run 'restfn sync' first");
    expect(existsSync(join(root, '.restfn'))).toBe(false);
  });
});
