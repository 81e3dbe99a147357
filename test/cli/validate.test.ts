import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { EXAMPLES, FIXTURES, tempSolution } from '../helpers/temp-solution.js';

const BROKEN = 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://127.0.0.1/items/{id}\n';
const WARNS = 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://127.0.0.1/items?x=1\n';

describe('restfn validate', () => {
  test('a valid solution: exit 0 and a summary', async () => {
    const r = await runCli(['validate', '--solution', join(EXAMPLES, 'demo')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('7 files checked: 0 errors, 0 warnings\n');
  });

  test('errors: exit 3, one path:line:col line per finding', async () => {
    const root = tempSolution({ 'functions/rest-get-item.platform': BROKEN });
    const r = await runCli(['validate'], { cwd: root });
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n')[0]).toBe(
      "functions/rest-get-item.platform:3:29: error URL_PLACEHOLDER_UNDECLARED: url placeholder {id} has no path parameter; add a parameter 'id' with 'location: path' and 'required: true'",
    );
    expect(r.stdout).toContain('1 file checked: 1 error, 0 warnings');
  });

  test('warnings only: exit 0', async () => {
    const root = tempSolution({ 'functions/rest-get-items.platform': WARNS });
    const r = await runCli(['validate', root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('warning URL_QUERY_REPLACED');
  });

  test('the solution is found from a subfolder upward', async () => {
    const root = tempSolution({
      'solution.yaml': 'name: t\n',
      'functions/deep/rest-get-item.platform': BROKEN,
    });
    const r = await runCli(['validate'], { cwd: join(root, 'functions', 'deep') });
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('URL_PLACEHOLDER_UNDECLARED');
  });

  test('files given as arguments: only their findings, checked in their solution', async () => {
    const root = tempSolution({
      'functions/rest-get-item.platform': BROKEN,
      'functions/rest-get-items.platform': WARNS,
    });
    const r = await runCli(['validate', join(root, 'functions/rest-get-items.platform')], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('rest-get-item.platform');
    expect(r.stdout).toContain('1 file checked: 0 errors, 1 warning');
  });

  test('--format json for tools', async () => {
    const r = await runCli([
      'validate',
      '--format',
      'json',
      join(FIXTURES, 'solutions', 'unknown-references'),
    ]);
    expect(r.code).toBe(3);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ files: 3, errors: 3, warnings: 0 });
    expect(report.diagnostics[0]).toMatchObject({
      file: expect.stringContaining('actions'),
      code: 'UNKNOWN_FUNCTION',
      line: 7,
      col: 13,
      severity: 'error',
    });
  });

  test('wrong usage: exit 2 with a message on stderr', async () => {
    const noSolution = tempSolution();
    const r1 = await runCli(['validate'], { cwd: noSolution });
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain('SOLUTION_NOT_FOUND');
    const r2 = await runCli(['validate', '--format', 'xml', join(EXAMPLES, 'demo')]);
    expect(r2.code).toBe(2);
    const r3 = await runCli(['validate', '--bogus']);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain("unknown option '--bogus'");
    const r4 = await runCli(['validate', join(noSolution, 'missing.platform')]);
    expect(r4.code).toBe(2);
    expect(r4.stderr).toContain('no such file or folder');
  });
});

describe('restfn schema', () => {
  test('prints the JSON Schema of each kind', async () => {
    const fn = await runCli(['schema']);
    expect(fn.code).toBe(0);
    expect(JSON.parse(fn.stdout)).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
    });
    const ds = JSON.parse((await runCli(['schema', '--kind', 'datasource'])).stdout);
    expect(
      ds.oneOf.map((kind: { properties: { type: { const: string } } }) => kind.properties.type.const),
    ).toEqual(['datasource.sqlite', 'datasource.static']);
    expect((await runCli(['schema', '--kind', 'nope'])).code).toBe(2);
  });
});
