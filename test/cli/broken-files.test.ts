import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { datasource } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

const BILLION_LAUGHS = `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/x
a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
`;

/** A solution with one good function and a datasource over it, next to every kind of broken file. */
async function brokenSolution(): Promise<string> {
  const server = await testServer((_req, res) => json(res, 200, [{ id: 'a1' }]));
  const root = tempSolution({
    'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\n`,
    'datasources/items.platform': datasource('items', 'rest-get-items'),
    // `a: &a [*a]`: endless data (it overflowed the stack in every command).
    'functions/recursive-alias.platform': 'a: &a [*a]\n',
    'functions/alias-bomb.platform': BILLION_LAUGHS,
    'functions/nested/rest-other.platform':
      'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://x.example/\n',
  });
  const functions = join(root, 'functions');
  symlinkSync('self.platform', join(functions, 'self.platform'));
  symlinkSync('missing.platform', join(functions, 'gone.platform'));
  // A folder link back to the folder it is in: followed naively, the same files repeat forever.
  symlinkSync('..', join(functions, 'nested', 'back'));
  mkdirSync(join(root, '.restfn'), { recursive: true });
  return root;
}

test('broken files are findings with codes; the rest of the solution loads once', async () => {
  const root = await brokenSolution();
  const solution = loadSolution(root, { displayBase: root });
  expect([...solution.functions.keys()].sort()).toEqual([
    'alias-bomb',
    'recursive-alias',
    'rest-get-items',
    'rest-other',
  ]);
  expect(solution.diagnostics.map((d) => [d.file, d.code])).toEqual(
    expect.arrayContaining([
      ['functions/alias-bomb.platform', 'YAML_ALIAS'],
      ['functions/recursive-alias.platform', 'YAML_ALIAS'],
      ['functions/self.platform', 'SYMLINK_LOOP'],
      ['functions/gone.platform', 'FILE_UNREADABLE'],
      ['functions/nested/back', 'SYMLINK_LOOP'],
    ]),
  );
});

test('validate reports every broken file; run and sync of the good function still work', async () => {
  const root = await brokenSolution();

  const validate = await runCli(['validate'], { cwd: root });
  expect(validate.code, validate.stderr).toBe(3);
  expect(validate.stderr).toBe('');
  for (const line of [
    /^functions\/recursive-alias\.platform:1:8: error YAML_ALIAS: the alias \*a is inside/m,
    /^functions\/alias-bomb\.platform:5:8: error YAML_ALIAS: aliases expand into more than 100 values/m,
    /^functions\/self\.platform:1:1: warning SYMLINK_LOOP: skipped: a symbolic link that leads back to itself/m,
    /^functions\/nested\/back:1:1: warning SYMLINK_LOOP: skipped: it leads back to /m,
    /^functions\/gone\.platform:1:1: error FILE_UNREADABLE: not read: a symbolic link to something that does not exist/m,
  ]) {
    expect(validate.stdout).toMatch(line);
  }

  const run = await runCli(['run', 'rest-get-items'], { cwd: root });
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual([{ id: 'a1' }]);

  const sync = await runCli(['sync'], { cwd: root });
  expect(sync.code, sync.stderr).toBe(0);
  expect(sync.stdout).toMatch(/^items: items <- rest-get-items: 1 page, 1 record \(/);

  // The broken function itself is refused with a definition error (exit 3), not an engine message.
  const broken = await runCli(['run', 'recursive-alias'], { cwd: root });
  expect(broken.code).toBe(3);
  expect(broken.stderr).toContain('YAML_ALIAS');
  expect(broken.stderr).not.toMatch(/call stack|RangeError/);
});

test('a broken solution.yaml stops run as it stops sync: its settings shape every call', async () => {
  const root = tempSolution({
    'solution.yaml': 'settings: &s\n  http: *s\n',
    'functions/rest-x.platform': 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://127.0.0.1:9/x\n',
  });
  const r = await runCli(['run', 'rest-x'], { cwd: root });
  expect(r.code).toBe(3);
  expect(r.stderr).toMatch(/^solution\.yaml:\d+:\d+: error YAML_ALIAS/m);
});
