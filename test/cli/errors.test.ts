import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { codedError } from '../../src/cli/coded-error.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { LocalStore } from '../../src/local/store.js';
import { CLI, runCli } from '../helpers/cli.js';
import { datasource, seed } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

/** The control characters in a text, line breaks aside. */
const controlCharacters = (text: string) =>
  [...text].filter((c) => c.charCodeAt(0) < 0x20 && c !== '\n').map((c) => c.charCodeAt(0));

const NOT_SQLITE = `${'this is a text file, not a SQLite database. '.repeat(10)}\n`;

/** A function that reads the local database before its (never made) call. */
const WITH_QUERY = (statement: string) => `provider: DATA_PROVIDER_REST
method: GET
url: http://127.0.0.1:9/items
queries:
  q:
    statement: ${JSON.stringify(statement)}
`;

interface Case {
  name: string;
  files?: Record<string, string>;
  /** Runs in the solution folder before the command (paths relative to it). */
  setup?: (root: string) => void;
  args: (root: string) => string[];
  code: string;
  exit: number;
}

const seeded = (root: string) => {
  const store = new LocalStore(join(root, '.restfn', 'local.db'));
  seed(store, 'items', [{ id: 'a' }]);
  store.close();
};

/** Every path that used to end in `restfn: error: <engine message>` and exit 1. */
const CASES: Case[] = [
  { name: 'an unknown command', args: () => ['bogus'], code: 'USAGE', exit: EXIT.USAGE },
  {
    name: 'deleting a credential that is not stored',
    args: () => ['credentials', 'delete', 'nope'],
    code: 'CREDENTIAL_NOT_FOUND',
    exit: EXIT.CREDENTIALS,
  },
  {
    name: "a path value that would move the request (the caller's value)",
    files: {
      'functions/rest-note.platform':
        'provider: DATA_PROVIDER_REST\nmethod: DELETE\nurl: http://127.0.0.1:9/notes/{id}\nparameters:\n  id: { location: path, type: string, required: true }\n',
    },
    args: () => ['run', 'rest-note', '-p', 'id=..'],
    code: 'INVALID_URL_VALUE',
    exit: EXIT.USAGE,
  },
  { name: 'an unknown option', args: () => ['run', 'x', '--bogus'], code: 'USAGE', exit: EXIT.USAGE },
  { name: 'a missing argument', args: () => ['run'], code: 'USAGE', exit: EXIT.USAGE },
  { name: 'an invalid choice', args: () => ['schema', '--kind', 'nope'], code: 'USAGE', exit: EXIT.USAGE },
  {
    name: 'query with a --db that is not SQLite',
    setup: (root) => writeFileSync(join(root, 'notes.txt'), NOT_SQLITE),
    args: () => ['query', 'SELECT 1', '--db', 'notes.txt'],
    code: 'DATABASE_INVALID',
    exit: EXIT.USAGE,
  },
  {
    name: 'sync with a --db that is not SQLite',
    files: {
      'functions/rest-get-items.platform': WITH_QUERY('SELECT 1'),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    },
    setup: (root) => writeFileSync(join(root, 'notes.txt'), NOT_SQLITE),
    args: () => ['sync', '--db', 'notes.txt'],
    code: 'DATABASE_INVALID',
    exit: EXIT.USAGE,
  },
  {
    name: 'run (a function with queries) with a --db that is not SQLite',
    files: { 'functions/rest-get-items.platform': WITH_QUERY('SELECT 1') },
    setup: (root) => writeFileSync(join(root, 'notes.txt'), NOT_SQLITE),
    args: () => ['run', 'rest-get-items', '--db', 'notes.txt'],
    code: 'DATABASE_INVALID',
    exit: EXIT.USAGE,
  },
  {
    name: 'query with a --db that is a folder',
    setup: (root) => mkdirSync(join(root, 'folder.db')),
    args: () => ['query', 'SELECT 1', '--db', 'folder.db'],
    code: 'DATABASE_INVALID',
    exit: EXIT.USAGE,
  },
  {
    name: 'run with a --db inside a file',
    files: { 'functions/rest-get-items.platform': WITH_QUERY('SELECT 1') },
    setup: (root) => writeFileSync(join(root, 'plain'), 'x'),
    args: () => ['run', 'rest-get-items', '--db', 'plain/local.db'],
    code: 'DATABASE_UNAVAILABLE',
    exit: EXIT.USAGE,
  },
  {
    name: 'a query of several statements',
    setup: seeded,
    args: () => ['query', 'SELECT 1; SELECT 2'],
    code: 'QUERY_INVALID',
    exit: EXIT.USAGE,
  },
  {
    name: 'an empty query',
    setup: seeded,
    args: () => ['query', '  '],
    code: 'QUERY_INVALID',
    exit: EXIT.USAGE,
  },
  {
    name: "a function's query that SQLite rejects",
    files: { 'functions/rest-get-items.platform': WITH_QUERY('SELECT nope FROM [items]') },
    args: () => ['run', 'rest-get-items'],
    code: 'QUERY_FAILED',
    exit: EXIT.INVALID_DEFINITION,
  },
  {
    name: "a datasource's query that SQLite rejects, during sync",
    files: {
      'datasources/items.platform':
        'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: items\n  query: SELECT nope FROM [items]\n',
    },
    args: () => ['sync'],
    code: 'QUERY_FAILED',
    exit: EXIT.INVALID_DEFINITION,
  },
  {
    name: 'new, where functions/ is a file',
    setup: (root) => writeFileSync(join(root, 'functions'), 'x'),
    args: () => ['new', 'rest-get-a'],
    code: 'FILE_ERROR',
    exit: EXIT.USAGE,
  },
  {
    name: 'credentials set, where the state folder is a file',
    setup: (root) => writeFileSync(join(root, '.restfn'), 'x'),
    args: () => ['credentials', 'set', 'k', '--kind', 'secret'],
    code: 'FILE_ERROR',
    exit: EXIT.USAGE,
  },
];

describe('every CLI failure has a code and the documented exit code', () => {
  test.each(CASES)('$name', async (c) => {
    const root = tempSolution({ 'solution.yaml': 'name: e\n', ...c.files });
    c.setup?.(root);
    const r = await runCli(c.args(root), {
      cwd: root,
      input: 'secret-value',
      env: { RESTFN_CREDENTIALS_KEY: Buffer.alloc(32, 7).toString('base64') },
    });
    expect(r.stderr).toMatch(new RegExp(`^restfn: error ${c.code}: \\S`, 'm'));
    expect(r.stderr).not.toMatch(/^restfn: error: /m);
    expect(r.code).toBe(c.exit);
  });

  test('names from the command line or a file cannot drive the terminal or forge lines', async () => {
    const hostile = 'X\u001b]0;T\u0007\nrestfn: forged';
    const root = tempSolution({
      'solution.yaml': 'name: e\n',
      [`functions/${hostile}.platform`]: 'method: [\n',
    });
    for (const args of [
      ['run', hostile],
      ['sync', hostile],
      ['run', 'x', '-p', `${hostile}=1`],
      ['validate'],
    ]) {
      const r = await runCli(args, { cwd: root });
      expect(controlCharacters(r.stderr), args.join(' ')).toEqual([]);
      expect(r.stderr, args.join(' ')).not.toMatch(/^restfn: forged/m);
      expect(r.stdout).not.toMatch(/^restfn: forged/m);
      expect(controlCharacters(r.stdout), args.join(' ')).toEqual([]);
    }
  });

  test('a reader that closes the pipe early ends the command quietly, not with an EPIPE crash', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: e\n' });
    seeded(root);
    // Many rows, and a reader that takes one chunk and closes its end.
    const sql =
      'WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 200000) SELECT x FROM n';
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'query', sql], { cwd: root });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('the final catch codes what restfn did not raise', () => {
  test('a file-system error names the operation and path (FILE_ERROR, exit 2)', () => {
    const error = Object.assign(new Error("EACCES: permission denied, open '/x/y'"), {
      code: 'EACCES',
      syscall: 'open',
      path: '/x/y',
    });
    const coded = codedError(error);
    expect(coded.code).toBe('FILE_ERROR');
    expect(coded.message).toBe(
      'cannot open /x/y (EACCES): check that the path exists and that you may read and write there',
    );
    expect(exitCodeFor(coded)).toBe(EXIT.USAGE);
  });

  test('a SQLite error is a database error (exit 2)', () => {
    const coded = codedError(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
    expect(coded.code).toBe('DATABASE_UNAVAILABLE');
    expect(coded.message).toContain('locked by another process');
    expect(exitCodeFor(coded)).toBe(EXIT.USAGE);
  });

  test('anything else is INTERNAL with a hint (exit 70), its message bounded', () => {
    const coded = codedError(new TypeError(`x is not a function ${'y'.repeat(1000)}`));
    expect(coded.code).toBe('INTERNAL');
    expect(coded.message).toMatch(
      /^restfn did not expect this \(TypeError: x is not a function y+\.\.\.\); it is a bug: rerun with RESTFN_DEBUG=1/,
    );
    expect(coded.message.length).toBeLessThan(500);
    expect(exitCodeFor(coded)).toBe(EXIT.INTERNAL);
    expect(codedError('a string').code).toBe('INTERNAL');
  });
});
