import { describe, expect, test } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { validateSolution } from '../../src/definition/validate.js';
import { json, type TestServer, testServer } from '../helpers/http-server.js';
import { seed, syncSetup } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

/** A service answering /accounts with two accounts and /orders?account=x with that account's orders. */
async function service(): Promise<TestServer> {
  return testServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/accounts')
      json(res, 200, [
        { id: 'a1', name: 'Acme', tags: ['x', 'y'], address: { city: 'Oslo' } },
        { id: 'a2', name: 'Birch', tags: [], address: { city: 'Bergen' } },
      ]);
    else
      json(res, 200, {
        records: [
          { id: `${url.searchParams.get('account')}-o1`, amount: 10, region: url.searchParams.get('region') },
        ],
      });
  });
}

const ACCOUNTS = (url: string) => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/accounts
`;
const ORDERS = (url: string) => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/orders
parameters:
  account: { location: query, type: string, required: true }
  region: { location: query, type: string }
records: =$.records
`;

describe('datasource options', () => {
  test("the '$.x' shorthand, double-quoted literals, jsonProperties and isDocument", async () => {
    const server = await service();
    const { runtime } = syncSetup({
      'functions/get-accounts.platform': ACCOUNTS(server.url),
      'datasources/accounts.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: default/accounts
      function: get-accounts
  query: |
    SELECT id, '$.name' || " in " || '$.address.city' AS label, '$.tags', '$.address'
    FROM [default/accounts] WHERE '$.name' LIKE @search ORDER BY '$.name'
  queryParameters:
    search: '=$string("%c%")'
  jsonProperties: [tags, '$.address']
`,
      'datasources/first-account.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities: [default/accounts]
  noSync: true
  isDocument: true
  query: SELECT id, '$.name' FROM [default/accounts] ORDER BY id DESC
`,
      'datasources/none.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities: [default/accounts]
  isDocument: true
  query: SELECT id FROM [default/accounts] WHERE id = 'nobody'
`,
    });
    const accounts = await runtime.sync('accounts');
    expect(accounts.rows).toEqual([
      { id: 'a1', label: 'Acme in Oslo', tags: ['x', 'y'], address: { city: 'Oslo' } },
      { id: 'a2', label: 'Birch in Bergen', tags: [], address: { city: 'Bergen' } },
    ]);
    expect(accounts.value).toEqual(accounts.rows);
    expect((await runtime.sync('first-account')).value).toEqual({ id: 'a2', name: 'Birch' });
    expect((await runtime.sync('none')).value).toBeNull();
  });

  test('noSync runs no function: the query reads the table as it is', async () => {
    const server = await service();
    const { runtime, store } = syncSetup({
      'functions/get-accounts.platform': ACCOUNTS(server.url),
      'datasources/accounts.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  noSync: true
  entities:
    - entity: accounts
      function: get-accounts
  query: SELECT id, '$.name' FROM [accounts]
`,
    });
    seed(store, 'accounts', [{ id: 'kept', name: 'Kept' }]);
    const result = await runtime.sync('accounts');
    expect(server.requests).toHaveLength(0);
    expect(result.entities).toEqual([]);
    expect(result.rows).toEqual([{ id: 'kept', name: 'Kept' }]);
  });

  test('rewriteQuery: false runs the query as written; conversions apply to each result row', async () => {
    // The smallest PNG: its bytes say what it is, so the data URI names image/png.
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const { runtime, store } = syncSetup({
      'datasources/as-written.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities: [pictures]
  rewriteQuery: false
  query: SELECT '$.name' AS text FROM [pictures]
`,
      'datasources/pictures.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities: [pictures]
  query: SELECT id, '$.image' FROM [pictures]
  conversions:
    - property: image
      from: base64
      to: data-uri
`,
    });
    seed(store, 'pictures', [{ id: 'p1', name: 'dot', image: png }]);
    expect((await runtime.sync('as-written')).rows).toEqual([{ text: '$.name' }]);
    expect((await runtime.sync('pictures')).rows).toEqual([
      { id: 'p1', image: `data:image/png;base64,${png}` },
    ]);
  });

  test('a query SQLite rejects is QUERY_FAILED at the line and column the author wrote', async () => {
    const { runtime } = syncSetup({
      'datasources/broken.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities: [accounts]
  query: |
    SELECT '$.name',
      '$.city', nosuchcolumn
    FROM [accounts]
`,
    });
    const error = await runtime.sync('broken').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'QUERY_FAILED' });
    expect((error as Error).message).toMatch(
      /datasources\/broken\.platform:7:17: datasource 'broken'.*no such column: nosuchcolumn/,
    );
  });
});

describe('REST and static datasources', () => {
  test('a REST datasource presents its function rows (and query over them) and writes no local table', async () => {
    const server = await service();
    const { runtime, store } = syncSetup({
      'functions/get-accounts.platform': ACCOUNTS(server.url),
      'functions/get-orders.platform': ORDERS(server.url),
      'datasources/orders.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_REST
  entities:
    - entity: orders
      function: get-orders
      functionParameters:
        account: a1
`,
      'datasources/names.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_REST
  entities:
    - entity: default/accounts
      function: get-accounts
  query: SELECT '$.name' FROM [default/accounts] ORDER BY id
`,
    });
    expect((await runtime.sync('orders')).rows).toEqual([{ id: 'a1-o1', amount: 10, region: null }]);
    expect((await runtime.sync('names')).rows).toEqual([{ name: 'Acme' }, { name: 'Birch' }]);
    expect(store.entityTables()).toEqual([]);
  });

  test('a static datasource is its data; data may be an expression', async () => {
    const { runtime } = syncSetup({
      'datasources/colours.platform': `type: datasource.static
options:
  data:
    - { id: 1, name: red }
    - { id: 2, name: blue }
`,
      'datasources/computed.platform': `type: datasource.static
options:
  data: '=[{"id": @ctx.inputs.n}]'
`,
    });
    expect((await runtime.sync('colours')).rows).toEqual([
      { id: 1, name: 'red' },
      { id: 2, name: 'blue' },
    ]);
    expect((await runtime.sync('computed', { context: { inputs: { n: 7 } } })).rows).toEqual([{ id: 7 }]);
  });
});

describe('datasource inputs and dependencies', () => {
  const files = (url: string) => ({
    'functions/get-accounts.platform': ACCOUNTS(url),
    'functions/get-orders.platform': ORDERS(url),
    'datasources/accounts.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: accounts
      function: get-accounts
  query: SELECT id, '$.name' FROM [accounts] WHERE '$.name' = @name
  queryParameters:
    name: =@ctx.jig.inputs.accountName
`,
    'datasources/orders.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: orders
      function: get-orders
      functionParameters:
        account: =@ctx.datasources.accounts[0].id
        region: =@ctx.inputs.region
  query: SELECT id, '$.region' FROM [orders]
`,
  });

  test('a datasource reading another runs after it, with its rows; inputs reach both', async () => {
    const server = await service();
    const { runtime } = syncSetup(files(server.url));
    const result = await runtime.sync('orders', {
      context: {
        inputs: { region: 'north', accountName: 'Birch' },
        jig: { inputs: { accountName: 'Birch' } },
      },
    });
    expect(server.requests.map((r) => r.url)).toEqual(['/accounts', '/orders?account=a2&region=north']);
    expect(result.rows).toEqual([{ id: 'a2-o1', region: 'north' }]);
    expect((result as { dependencies?: unknown[] }).dependencies).toHaveLength(1);
  });

  test('datasources the caller already has are not run again', async () => {
    const server = await service();
    const { runtime } = syncSetup(files(server.url));
    await runtime.sync('orders', { context: { datasources: { accounts: [{ id: 'given' }] } } });
    expect(server.requests.map((r) => r.url)).toEqual(['/orders?account=given']);
  });

  test('a cycle is DATASOURCE_CYCLE when syncing and in validate, at the read', async () => {
    const root = tempSolution({
      'datasources/a.platform': `type: datasource.static
options:
  data: =@ctx.datasources.b
`,
      'datasources/b.platform': `type: datasource.static
options:
  data: '=[@ctx.datasources.\`a\`, @ctx.datasources.missing]'
`,
    });
    const { diagnostics } = await validateSolution(loadSolution(root, { displayBase: root }));
    expect(diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code}`)).toEqual([
      'datasources/a.platform:3:10 DATASOURCE_CYCLE',
      'datasources/b.platform:3:12 DATASOURCE_CYCLE',
      'datasources/b.platform:3:34 UNKNOWN_DATASOURCE',
    ]);
    const { runtime } = syncSetup({
      'datasources/a.platform': 'type: datasource.static\noptions:\n  data: =@ctx.datasources.b\n',
      'datasources/b.platform': 'type: datasource.static\noptions:\n  data: =@ctx.datasources.a\n',
    });
    await expect(runtime.sync('a')).rejects.toMatchObject({
      code: 'DATASOURCE_CYCLE',
      message: expect.stringContaining(
        'datasources/b.platform:3:10: datasources read each other in a cycle: a -> b -> a',
      ),
    });
  });
});
