import { describe, expect, test } from 'vitest';
import type { LocalStore } from '../../src/local/store.js';
import { json, testServer } from '../helpers/http-server.js';
import { datasource, datasourceOf, seed, syncSetup } from '../helpers/sync.js';

const ids = (store: LocalStore, table: string) => store.rows(table).map((r) => r.id);

/** Serves `rows` (optionally split into pages of `size`, linked by `next`). */
async function itemsServer(rows: unknown[], size = rows.length) {
  return testServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const page = rows.slice(offset, offset + size);
    const next =
      offset + size < rows.length ? `http://${req.headers.host}/items?offset=${offset + size}` : undefined;
    json(res, 200, { items: page, ...(next ? { next } : {}) });
  });
}

/** Paging by a `page` query counter, 1, 2, 3..., while `when` holds. */
const PAGE_COUNTER = (when: string) => `parameters:
  page: { location: query, type: int, value: 1 }
continuation:
  when: ${when}
  parameters:
    page: { location: query, type: int, value: =$number(@ctx.parameters.page) + 1 }
`;

const GET = (url: string, extra = '') => `provider: DATA_PROVIDER_REST
method: GET
url: ${url}/items
outputTransform: $.items
${extra}`;

describe('scope rules', () => {
  test('no scope field: the whole table is replaced; temp-id rows go too unless keepTempIds', async () => {
    const server = await itemsServer([{ id: 'a' }, { id: 'b' }]);
    for (const keep of [false, true]) {
      const { runtime, store } = syncSetup({
        'functions/rest-get-items.platform': GET(server.url, keep ? 'keepTempIds: true\n' : ''),
        'datasources/items.platform': datasource('items', 'rest-get-items'),
      });
      seed(store, 'items', [{ id: 'old' }, { id: '_tmp_1', draft: true }]);
      const result = await runtime.sync('items');
      expect(result.entities[0]).toMatchObject({ pages: 1, records: 2, stopped: 'done' });
      expect(ids(store, 'items')).toEqual(keep ? ['_tmp_1', 'a', 'b'] : ['a', 'b']);
    }
  });

  test('forRowsWithMatchingIds: top-level merge on id, other rows untouched', async () => {
    const server = await itemsServer([
      { id: 'a', name: 'new', nested: { y: 2 } },
      { id: 'c', name: 'added' },
    ]);
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(server.url, 'forRowsWithMatchingIds: true\n'),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    seed(store, 'items', [
      { id: 'a', name: 'old', keep: 1, nested: { x: 1 } },
      { id: 'z', name: 'untouched' },
    ]);
    await runtime.sync('items');
    expect(store.rows('items')).toEqual([
      { id: 'a', name: 'new', keep: 1, nested: { y: 2 } },
      { id: 'c', name: 'added' },
      { id: 'z', name: 'untouched' },
    ]);
  });

  test('forRowsWithValues: only rows whose column equals the parameter are replaced', async () => {
    const server = await itemsServer([{ id: 'c', region: 'eu' }]);
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(
        server.url,
        'parameters:\n  region: { location: query, type: string }\nforRowsWithValues:\n  region: region\n',
      ),
      'datasources/items.platform': datasource('items', 'rest-get-items', { region: 'eu' }),
    });
    seed(store, 'items', [
      { id: 'a', region: 'eu' },
      { id: 'b', region: 'us' },
    ]);
    await runtime.sync('items');
    expect(ids(store, 'items')).toEqual(['b', 'c']);
    expect(server.requests[0]!.url).toBe('/items?region=eu');
  });

  test('forRowsInRange is inclusive, and combines with forRowsWithValues', async () => {
    const server = await itemsServer([{ id: 'new', n: 3, kind: 'x' }]);
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(
        server.url,
        `parameters:
  from: { location: query, type: number }
  to: { location: query, type: number }
  kind: { location: query, type: string }
forRowsInRange:
  n: { from: from, to: to }
forRowsWithValues:
  kind: kind
`,
      ),
      'datasources/items.platform': datasource('items', 'rest-get-items', { from: 2, to: 4, kind: 'x' }),
    });
    seed(
      store,
      'items',
      [1, 2, 3, 4, 5].map((n) => ({ id: `r${n}`, n, kind: 'x' })),
    );
    seed(store, 'items', [{ id: 'y3', n: 3, kind: 'y' }]);
    await runtime.sync('items');
    expect(ids(store, 'items')).toEqual(['new', 'r1', 'r5', 'y3']);
  });

  test('records picks the rows out of the output; a record without id gets one', async () => {
    const server = await testServer((_, res) =>
      json(res, 200, { data: { rows: [{ id: 1, v: 'a' }, { v: 'no id' }] } }),
    );
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\nrecords: $.data.rows\n`,
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    await runtime.sync('items');
    const rows = store.rows('items');
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.v === 'a')).toEqual({ id: 1, v: 'a' });
    expect(rows.find((r) => r.v === 'no id')!.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('continuation', () => {
  const rows = Array.from({ length: 10 }, (_, i) => ({ id: `i${i}` }));

  test('next link in the body: every page lands, the link is followed as given', async () => {
    const server = await itemsServer(rows, 4);
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(
        server.url,
        'continuation:\n  when: =$exists(@ctx.response.body.next)\n  url: =@ctx.response.body.next\n',
      ),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    const result = await runtime.sync('items');
    expect(result.entities[0]).toMatchObject({ pages: 3, records: 10, stopped: 'done' });
    expect(server.requests.map((r) => r.url)).toEqual(['/items', '/items?offset=4', '/items?offset=8']);
    expect(ids(store, 'items')).toHaveLength(10);
  });

  test('page counter: the new parameters see the previous call; the function when re-evaluates each page', async () => {
    const server = await testServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      json(res, 200, { items: [{ id: `p${page}` }] });
    });
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(
        server.url,
        `parameters:
  page: { location: query, type: int, value: 1 }
when: =@ctx.parameters.page <= 4
continuation:
  when: =$count(@ctx.output) > 0
  parameters:
    page: { location: query, type: int, value: =$number(@ctx.parameters.page) + 1 }
`,
      ),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    const result = await runtime.sync('items');
    expect(server.requests.map((r) => r.url)).toEqual([
      '/items?page=1',
      '/items?page=2',
      '/items?page=3',
      '/items?page=4',
    ]);
    expect(result.entities[0]).toMatchObject({ pages: 4, stopped: 'done' });
    expect(ids(store, 'items')).toEqual(['p1', 'p2', 'p3', 'p4']);
  });

  test('cursor: the next cursor comes from the previous response', async () => {
    const server = await testServer((req, res) => {
      const cursor = new URL(req.url, 'http://x').searchParams.get('cursor') ?? 'start';
      const next = { start: 'c1', c1: 'c2', c2: null }[cursor];
      json(res, 200, { items: [{ id: cursor }], nextCursor: next });
    });
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(
        server.url,
        `continuation:
  when: =@ctx.response.body.nextCursor != null
  parameters:
    cursor: { location: query, type: string, value: =@ctx.response.body.nextCursor }
`,
      ),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    await runtime.sync('items');
    expect(server.requests.map((r) => r.url)).toEqual(['/items', '/items?cursor=c1', '/items?cursor=c2']);
    expect(ids(store, 'items')).toEqual(['c1', 'c2', 'start']);
  });

  test('the page cap fails the sync and keeps the table; allowPartial keeps the pages instead', async () => {
    let n = 0;
    const server = await testServer((_, res) => json(res, 200, { items: [{ id: `n${n++}` }], more: true }));
    const { runtime, store } = syncSetup(
      {
        'functions/rest-get-items.platform': GET(server.url, PAGE_COUNTER('=@ctx.response.body.more')),
        'datasources/items.platform': datasource('items', 'rest-get-items'),
      },
      5,
    );
    seed(store, 'items', [{ id: 'kept' }]);
    await expect(runtime.sync('items')).rejects.toMatchObject({ code: 'PAGE_LIMIT', pages: 5 });
    expect(server.requests).toHaveLength(5);
    expect(ids(store, 'items')).toEqual(['kept']);

    const partial = await runtime.sync('items', { allowPartial: true });
    expect(partial.entities[0]).toMatchObject({
      pages: 5,
      stopped: 'page-cap',
      error: { code: 'PAGE_LIMIT' },
    });
    expect(ids(store, 'items')).toHaveLength(5);
    expect(ids(store, 'items')).not.toContain('kept');
  });

  test('a continuation that sends the same request again fails PAGING_STALLED; the table stays', async () => {
    const server = await testServer((_, res) => json(res, 200, { items: [{ id: 'same' }], next: true }));
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(
        server.url,
        'continuation:\n  when: =@ctx.response.body.next\n',
      ),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    seed(store, 'items', [{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    await expect(runtime.sync('items')).rejects.toMatchObject({
      code: 'PAGING_STALLED',
      message: expect.stringContaining('page 2 advanced nothing: it sent the same request as page 1'),
    });
    expect(server.requests.map((r) => r.url)).toEqual(['/items', '/items']);
    expect(ids(store, 'items')).toEqual(['a', 'b', 'c']);
  });

  test('a cursor sent in a header advances paging: the same url with a new header is a new request', async () => {
    const server = await testServer((req, res) => {
      const cursor = Number(req.headers['x-cursor'] ?? 0);
      json(res, 200, { items: [{ id: `c${cursor}` }], next: cursor < 2 ? cursor + 1 : null });
    });
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(
        server.url,
        `parameters:
  x-cursor: { location: header, type: string, value: '0' }
continuation:
  when: =@ctx.response.body.next != null
  parameters:
    x-cursor: { location: header, type: string, value: =$string(@ctx.response.body.next) }
`,
      ),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    const result = await runtime.sync('items');
    expect(result.entities[0]).toMatchObject({ pages: 3, stopped: 'done' });
    expect(ids(store, 'items')).toEqual(['c0', 'c1', 'c2']);
  });

  test('a continuation url that comes out empty (a typo) fails before sending; the 45 rows stay', async () => {
    const rows = Array.from({ length: 45 }, (_, i) => ({ id: `r${String(i).padStart(2, '0')}` }));
    const server = await itemsServer(rows, 10);
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(
        server.url,
        'continuation:\n  when: =@ctx.response.body.next != null\n  url: =@ctx.response.body.nxt\n',
      ),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    seed(store, 'items', rows);
    await expect(runtime.sync('items')).rejects.toMatchObject({
      code: 'PAGING_STALLED',
      message: expect.stringMatching(/continuation\.url gave nothing \(.*rest-get-items\.platform\)/),
    });
    expect(server.requests).toHaveLength(1);
    expect(ids(store, 'items')).toHaveLength(45);
  });

  test('a new request answered with the last page again is a clean end of data', async () => {
    const server = await testServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);
      // Past the end the service repeats its last page instead of an empty one.
      json(res, 200, { items: [{ id: `p${Math.min(page, 2)}` }] });
    });
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(server.url, PAGE_COUNTER('true')),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    const result = await runtime.sync('items');
    expect(result.entities[0]).toMatchObject({ pages: 2, stopped: 'repeated-page' });
    expect(server.requests).toHaveLength(3);
    expect(ids(store, 'items')).toEqual(['p1', 'p2']);
  });

  test('allowPartial keeps the pages before a failed one, and says why it stopped', async () => {
    const server = await testServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);
      if (page === 3) json(res, 500, { error: 'boom' });
      else json(res, 200, { items: [{ id: `p${page}` }] });
    });
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(server.url, PAGE_COUNTER('true')),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    const result = await runtime.sync('items', { allowPartial: true });
    expect(result.entities[0]).toMatchObject({
      pages: 2,
      records: 2,
      stopped: 'failed',
      error: { code: 'REMOTE_ERROR', status: 500 },
    });
    expect(ids(store, 'items')).toEqual(['p1', 'p2']);
  });

  test('a failure on a later page leaves the table exactly as it was, and no staging behind', async () => {
    const server = await testServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);
      if (page === 3) json(res, 500, { error: 'boom' });
      else json(res, 200, { items: [{ id: `p${page}` }] });
    });
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': GET(server.url, PAGE_COUNTER('true')),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    seed(store, 'items', [{ id: 'before-1' }, { id: 'before-2' }]);
    const before = store.db.prepare('SELECT id, data FROM [items] ORDER BY id').all();
    await expect(runtime.sync('items')).rejects.toMatchObject({ code: 'REMOTE_ERROR', status: 500 });
    expect(server.requests).toHaveLength(3);
    expect(store.db.prepare('SELECT id, data FROM [items] ORDER BY id').all()).toEqual(before);
    const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    expect(tables).toEqual([{ name: 'items' }]);
  });

  test('a datasource of several entities is one commit: the second failing keeps the first as it was', async () => {
    const server = await testServer((req, res) => {
      if (req.url.startsWith('/orders')) json(res, 500, { error: 'boom' });
      else json(res, 200, { items: [{ id: 'c-new' }] });
    });
    const files = {
      'functions/rest-get-customers.platform': GET(server.url),
      'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/orders\n`,
      'datasources/shop.platform': datasourceOf({
        customers: 'rest-get-customers',
        orders: 'rest-get-orders',
      }),
    };
    const { runtime, store } = syncSetup(files);
    seed(store, 'customers', [{ id: 'c-old' }]);
    await expect(runtime.sync('shop')).rejects.toMatchObject({ code: 'REMOTE_ERROR', status: 500 });
    expect(ids(store, 'customers')).toEqual(['c-old']);
    expect(store.hasTable('orders')).toBe(false);

    // Asked for explicitly, each entity commits on its own: the first one is kept.
    await expect(runtime.sync('shop', { commitPerEntity: true })).rejects.toMatchObject({
      code: 'REMOTE_ERROR',
    });
    expect(ids(store, 'customers')).toEqual(['c-new']);
  });

  test.each([
    ['an object', '{"a": 1}', '{"a":1}'],
    ['a list', '[1, 2]', '[1,2]'],
    ['a boolean', 'true', 'true'],
  ])(
    'a record whose id is %s: RECORD_ID_INVALID naming the record and the function, nothing written',
    async (kind, id, shown) => {
      const server = await testServer((_, res) => json(res, 200, {}));
      const { runtime, store } = syncSetup({
        'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
outputTransform: '[{"id": "fine"}, {"id": ${id}, "name": "x"}]'
`,
        'datasources/items.platform': datasource('items', 'rest-get-items'),
      });
      seed(store, 'items', [{ id: 'kept' }]);
      const error = await runtime.sync('items').catch((e: Error) => e);
      expect(error).toMatchObject({ code: 'RECORD_ID_INVALID' });
      expect((error as Error).message).toContain("function 'rest-get-items' (table 'items')");
      expect((error as Error).message).toContain(`id ${shown} has ${kind} as its id`);
      expect(ids(store, 'items')).toEqual(['kept']);
    },
  );
});

describe('the next page is asked for while the current one is written', () => {
  const PAGED = (url: string, extra = '') =>
    GET(
      url,
      `parameters:
  page: { location: query, type: int, value: 1 }
continuation:
  when: =@ctx.parameters.page < 4
  parameters:
    page: { location: query, type: int, value: =$number(@ctx.parameters.page) + 1 }
${extra}`,
    );
  /** Page N holds `p{N}`; `bad` pages hold a record whose id is an object (it fails to stage). */
  const pagedServer = (bad: number[] = [], delayMs = 0) =>
    testServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      const id = bad.includes(page) ? { not: 'an id' } : `p${page}`;
      setTimeout(() => json(res, 200, { items: [{ id }] }), delayMs);
    });

  test('a GET requests page N+1 before page N is written; every page lands in order', async () => {
    const server = await pagedServer();
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': PAGED(server.url),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    let sent = 0;
    runtime.on((e) => {
      if (e.type === 'request') sent++;
    });
    const seen: number[] = [];
    const result = await runtime.sync('items', { onProgress: (p) => seen.push(p.pages * 10 + sent) });
    expect(result.entities[0]).toMatchObject({ pages: 4, records: 4, stopped: 'done' });
    // When page N was written, page N+1 had been asked for (the last page has no next).
    expect(seen).toEqual([12, 23, 34, 44]);
    expect(ids(store, 'items')).toEqual(['p1', 'p2', 'p3', 'p4']);
  });

  test('a page that fails to stage fails the sync with its own error; the page asked for ahead is dropped', async () => {
    const server = await pagedServer([2], 50);
    const { runtime, store } = syncSetup({
      'functions/rest-get-items.platform': PAGED(server.url),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    seed(store, 'items', [{ id: 'before' }]);
    const sent: string[] = [];
    runtime.on((e) => {
      if (e.type === 'request') sent.push(new URL(e.url).search);
    });
    await expect(runtime.sync('items')).rejects.toMatchObject({ code: 'RECORD_ID_INVALID' });
    expect(sent).toEqual(['?page=1', '?page=2', '?page=3']);
    expect(ids(store, 'items')).toEqual(['before']);
    expect(store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([
      { name: 'items' },
    ]);
  });

  test('when deciding the next page and writing this one both fail, the write failure is reported, as without lookahead', async () => {
    const server = await pagedServer([1]);
    const { runtime } = syncSetup({
      'functions/rest-get-items.platform': GET(
        server.url,
        `parameters:
  page: { location: query, type: int, value: 1 }
continuation:
  when: =$number("not a number") > 0
`,
      ),
      'datasources/items.platform': datasource('items', 'rest-get-items'),
    });
    await expect(runtime.sync('items')).rejects.toMatchObject({ code: 'RECORD_ID_INVALID' });
    expect(server.requests).toHaveLength(1);
  });

  test('functions with conversions or another method than GET ask for the next page only after writing', async () => {
    for (const extra of ['conversions: []\n', 'method: POST\n']) {
      const server = await pagedServer();
      const definition = PAGED(server.url, extra.startsWith('method') ? '' : extra);
      const { runtime } = syncSetup({
        'functions/rest-get-items.platform': extra.startsWith('method')
          ? definition.replace('method: GET', 'method: POST')
          : definition,
        'datasources/items.platform': datasource('items', 'rest-get-items'),
      });
      let sent = 0;
      runtime.on((e) => {
        if (e.type === 'request') sent++;
      });
      const seen: number[] = [];
      await runtime.sync('items', { onProgress: (p) => seen.push(p.pages * 10 + sent) });
      expect(seen).toEqual([11, 22, 33, 44]);
    }
  });
});
