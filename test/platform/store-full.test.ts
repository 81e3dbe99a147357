import { describe, expect, it } from 'vitest';
import { storeFullError, writeFailureOf } from '../../src/platform/store/full.js';

/**
 * Which engine failures are a full or read-only disk (STORE_FULL), and which are not. SQLite's and
 * the file system's are met for real in storage.test.ts (a full tmpfs); PostgreSQL's disk_full
 * needs a full disk under the database server, so its words are checked here as pg reports them.
 */
describe('a write failure of a full or read-only disk', () => {
  it.each([
    [{ code: 'SQLITE_FULL', message: 'database or disk is full' }, 'SQLITE_FULL'],
    [{ code: 'SQLITE_READONLY', message: 'attempt to write a readonly database' }, 'SQLITE_READONLY'],
    [{ code: 'SQLITE_READONLY_DBMOVED', message: 'x' }, 'SQLITE_READONLY_DBMOVED'],
    [{ code: 'SQLITE_IOERR_WRITE', message: 'disk I/O error' }, 'SQLITE_IOERR_WRITE'],
    [Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), 'ENOSPC'],
    [Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' }), 'EROFS'],
    [Object.assign(new Error('EDQUOT: quota exceeded'), { code: 'EDQUOT' }), 'EDQUOT'],
    [
      { code: '53100', message: 'could not extend file "base/16384/16390": No space left on device' },
      'SQLSTATE 53100',
    ],
    [{ code: '25006', message: 'cannot execute INSERT in a read-only transaction' }, 'SQLSTATE 25006'],
    [{ message: 'could not extend file "base/1/2": wrote only 4096 of 8192 bytes' }, 'could not extend file'],
  ])('%o is %s', (error, cause) => {
    expect(writeFailureOf(error)).toBe(cause);
  });

  it.each([
    [{ code: 'SQLITE_BUSY', message: 'database is locked' }],
    [{ code: 'SQLITE_CONSTRAINT_PRIMARYKEY', message: 'UNIQUE constraint failed' }],
    [Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' })],
    [{ code: '23505', message: 'duplicate key value' }],
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }],
    [new Error('anything else')],
    [undefined],
  ])('%o is not', (error) => {
    expect(writeFailureOf(error)).toBeUndefined();
  });

  it('answers STORE_FULL (507) saying what failed and what to do, naming no path', () => {
    const error = storeFullError('ENOSPC');
    expect(error.code).toBe('STORE_FULL');
    expect(error.message).toContain('(ENOSPC)');
    expect(error.message).toContain('frees space');
    expect(error.message).toContain('--keep-versions');
  });
});
