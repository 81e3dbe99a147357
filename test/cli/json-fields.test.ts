import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { customersApi, queueSolution } from '../helpers/queue.js';
import { tempSolution } from '../helpers/temp-solution.js';

describe('run, query and action: --json FIELDS and --expr', () => {
  it('keeps the fields asked, lists them with --json alone, and filters with a JSONata expression', async () => {
    const service = await testServer((_req, res) =>
      json(res, 200, { id: 7, name: 'Ada Lovelace', email: 'ada@example.com', tags: ['a', 'b'] }),
    );
    const root = tempSolution({
      'solution.yaml': 'name: people\n',
      'functions/rest-get-person.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/person\n`,
    });
    const run = (...args: string[]) => runCli(['run', 'rest-get-person', '-s', root, ...args]);

    const picked = await run('--json', 'name,id');
    expect(picked.code).toBe(0);
    expect(JSON.parse(picked.stdout)).toEqual({ name: 'Ada Lovelace', id: 7 });
    expect(Object.keys(JSON.parse(picked.stdout))).toEqual(['name', 'id']);

    const fields = await run('--json');
    expect(fields.code).toBe(0);
    expect(fields.stdout).toBe('id\nname\nemail\ntags\n');

    const unknown = await run('--json', 'nme');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "--json: no field 'nme' in the output; the fields are: id, name, email, tags",
    );

    // A text prints bare (as gh --jq does); anything else as JSON.
    expect((await run('--expr', 'name')).stdout).toBe('Ada Lovelace\n');
    expect(JSON.parse((await run('--json', 'tags,id', '--expr', '$count(tags)')).stdout)).toBe(2);
    expect((await run('--expr', '$uppercase(email)')).stdout).toBe('ADA@EXAMPLE.COM\n');
    const broken = await run('--expr', 'name +');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('restfn: error USAGE: --expr:');

    // Without either: the output as before.
    expect(JSON.parse((await run()).stdout)).toMatchObject({ id: 7, tags: ['a', 'b'] });
  });

  it('query picks fields of each row; action of its result', async () => {
    const api = await customersApi([
      { id: 'c-1', name: 'Ada', region: 'eu' },
      { id: 'c-2', name: 'Grace', region: 'us' },
    ]);
    const root = tempSolution({ 'solution.yaml': 'name: crm\n', ...queueSolution(api.url) });
    expect((await runCli(['sync', 'customers', '-s', root])).code).toBe(0);

    // The datasource's rows are `id, data` (its query): the fields of each row.
    const rows = await runCli(['query', 'customers', '-s', root, '--json', 'id']);
    expect(rows.code).toBe(0);
    expect(JSON.parse(rows.stdout)).toEqual([{ id: 'c-1' }, { id: 'c-2' }]);
    const ids = await runCli(['query', 'customers', '-s', root, '--expr', "$join(id, ', ')"]);
    expect(ids.stdout).toBe('c-1, c-2\n');
    const sql = await runCli(['query', 'SELECT id FROM [customers] ORDER BY id', '-s', root, '--json']);
    expect(sql.stdout).toBe('id\n');

    const done = await runCli([
      'action',
      'update-customer',
      '-s',
      root,
      '-p',
      'current.item.id=c-1',
      '-p',
      'components.name.state.value=Ada L.',
      '--json',
    ]);
    expect(done.code).toBe(0);
    const actionFields = done.stdout.trim().split('\n');
    expect(actionFields.length).toBeGreaterThan(0);
    const one = await runCli([
      'action',
      'update-customer',
      '-s',
      root,
      '-p',
      'current.item.id=c-1',
      '-p',
      'components.name.state.value=Ada',
      '--json',
      actionFields[0]!,
    ]);
    expect(one.code).toBe(0);
    expect(Object.keys(JSON.parse(one.stdout))).toEqual([actionFields[0]]);
  });
});
