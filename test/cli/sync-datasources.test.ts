import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

// A solution written the way the platform's samples write theirs: a REST datasource, a local one
// with the '$.x' shorthand, jsonProperties and isDocument, one reading another and an input.
const solution = (url: string) => ({
  'solution.yaml': 'name: field-sales\ntitle: Field sales\n',
  'functions/rest-get-accounts.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/accounts
outputTransform: $.value
`,
  'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/orders
parameters:
  accountId: { location: query, type: string, required: true }
  status: { location: query, type: string }
records: =$.records
`,
  'datasources/accounts.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: default/accounts
      function: rest-get-accounts
  query: |
    SELECT id, '$.name', '$.contact.email' AS email, '$.tags'
    FROM [default/accounts]
    WHERE '$.region' = @region OR @region IS NULL
    ORDER BY '$.name'
  queryParameters:
    region: =@ctx.jig.inputs.region
  jsonProperties:
    - tags
`,
  'datasources/open-orders.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_REST
  isDocument: false
  entities:
    - entity: default/orders
      function: rest-get-orders
      functionParameters:
        accountId: =@ctx.datasources.accounts[0].id
        status: =@ctx.inputs.status
  query: SELECT id, '$.total' FROM [default/orders] WHERE "open" = '$.state'
`,
  'datasources/statuses.platform': `type: datasource.static
options:
  data:
    - { id: open, title: Open }
    - { id: closed, title: Closed }
`,
});

async function service() {
  return testServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/accounts')
      json(res, 200, {
        value: [
          { id: 'a1', name: 'Acme', region: 'north', contact: { email: 'a@x' }, tags: ['vip'] },
          { id: 'a2', name: 'Birch', region: 'south', contact: { email: 'b@x' }, tags: [] },
        ],
      });
    else
      json(res, 200, {
        records: [
          { id: 'o1', total: 5, state: url.searchParams.get('status') },
          { id: 'o2', total: 9, state: 'closed' },
        ],
      });
  });
}

describe('restfn sync: datasources as the platform writes them', () => {
  test('validate accepts every datasource key; sync runs dependencies first with --input values', async () => {
    const server = await service();
    const root = tempSolution(solution(server.url));
    const validate = await runCli(['validate'], { cwd: root });
    expect(validate.stdout).toContain('0 errors, 0 warnings');
    expect(validate.code).toBe(0);

    // Asked in the wrong order: accounts runs first because open-orders reads it.
    const sync = await runCli(
      [
        'sync',
        'open-orders',
        'accounts',
        '--input',
        'region=south',
        '--input',
        'status=open',
        '--format',
        'json',
      ],
      { cwd: root },
    );
    expect(sync.code, sync.stderr).toBe(0);
    expect(
      JSON.parse(sync.stdout).map((r: { datasource: string; rows: number }) => [r.datasource, r.rows]),
    ).toEqual([
      ['accounts', 1],
      ['open-orders', 1],
    ]);
    expect(server.requests.map((r) => r.url)).toEqual(['/accounts', '/orders?accountId=a2&status=open']);

    const rows = await runCli(
      ['query', "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"],
      { cwd: root },
    );
    // The REST datasource wrote no table; the local one did.
    expect(JSON.parse(rows.stdout)).toEqual([{ name: 'default/accounts' }]);
    const accounts = await runCli(['query', 'accounts'], { cwd: root });
    expect(JSON.parse(accounts.stdout)).toEqual([
      { id: 'a1', name: 'Acme', email: 'a@x', tags: ['vip'] },
      { id: 'a2', name: 'Birch', email: 'b@x', tags: [] },
    ]);
  });

  test('--input takes name=value; anything else is a usage error', async () => {
    const root = tempSolution({
      'solution.yaml': 'name: s\n',
      'datasources/statuses.platform': solution('')['datasources/statuses.platform'],
    });
    const bad = await runCli(['sync', '--input', 'novalue'], { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--input takes name=value (got 'novalue')");
    const ok = await runCli(['sync', 'statuses'], { cwd: root });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^statuses: no functions, gives 2 rows/);
  });
});
