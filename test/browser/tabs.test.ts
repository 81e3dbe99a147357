import { describe, expect, it } from 'vitest';
import { browserApp, browserPage, openClient, type PageClient } from '../helpers/browser-app.js';

// The page's client (browser-app.ts), referred to inside page.evaluate.
declare const client: PageClient;
declare const watched: string[][];
declare const navigator: { locks: { query(): Promise<{ pending?: unknown[] }> } };

const POLL = { timeout: 90_000 };

const rename = (id: string, name: string) => ({
  current: { item: { id } },
  components: { name: { state: { value: name } } },
});

describe('restfn/client in two tabs of one app, in Chromium', () => {
  it("both tabs use one database: each sees the other's rows; pushes that overlap send each command once", async () => {
    const { api, token, app } = await browserApp([
      { id: 'c-1', name: 'Ada', region: 'eu' },
      { id: 'c-2', name: 'Grace', region: 'us' },
    ]);
    const { context, page: a } = await browserPage();
    const b = await context.newPage();
    await a.goto(`${app.url}/`);
    await b.goto(`${app.url}/`);
    await openClient(a, token);
    await openClient(b, token);

    // Tab B watches the table; tab A syncs it: B reads A's rows, and its live query re-runs.
    await b.evaluate(() => {
      const w = globalThis as unknown as { watched: string[][] };
      w.watched = [];
      client.watch(
        'SELECT data FROM [customers] ORDER BY id',
        {},
        (rows: Array<{ data: { name: string } }>) => w.watched.push(rows.map((r) => r.data.name)),
      );
    });
    await a.evaluate(() => client.sync('customers'));
    expect(await b.evaluate(() => client.query('SELECT id FROM [customers] ORDER BY id'))).toEqual([
      { id: 'c-1' },
      { id: 'c-2' },
    ]);
    await expect.poll(() => b.evaluate(() => watched.at(-1)), POLL).toEqual(['Ada', 'Grace']);

    // Offline, each tab changes a record: one queue, two commands, seen from both tabs.
    app.platformReachable = false;
    await a.evaluate((ctx) => client.action('update-customer', ctx), rename('c-1', 'Ada A'));
    await b.evaluate((ctx) => client.action('update-customer', ctx), rename('c-2', 'Grace B'));
    expect(await a.evaluate(async () => (await client.queuedCommands()).length)).toBe(2);
    expect(await b.evaluate(() => client.query("SELECT data FROM [customers] WHERE id = 'c-1'"))).toEqual([
      { data: { id: 'c-1', name: 'Ada A', region: 'eu' } },
    ]);
    await expect.poll(() => b.evaluate(() => watched.at(-1)), POLL).toEqual(['Ada A', 'Grace B']);
    // Tab A's status counts tab B's command too (its queue badge follows).
    await expect.poll(() => a.evaluate(() => client.status.queued), POLL).toBe(2);

    // Back online, tab A's push is held at the service while tab B asks to push too: B waits for
    // the database (A holds it for its whole push) and then finds nothing left to send.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    api.intercept = async (req) => {
      if (req.method === 'PATCH') await held;
      return false;
    };
    app.platformReachable = true;
    const pushA = a.evaluate(() => client.pushQueue());
    await expect.poll(() => api.requests.filter((r) => r.method === 'PATCH').length, POLL).toBe(1);
    const pushB = b.evaluate(() => client.pushQueue());
    await expect
      .poll(
        () =>
          b.evaluate(async () => {
            const { pending = [] } = await navigator.locks.query();
            return pending.length;
          }),
        POLL,
      )
      .toBeGreaterThan(0);
    release();
    const [resultA, resultB] = await Promise.all([pushA, pushB]);
    expect(resultA).toMatchObject({ sent: 2, remaining: 0 });
    expect(resultB).toMatchObject({ sent: 0, remaining: 0 });
    expect(api.requests.filter((r) => r.method === 'PATCH').map((r) => r.url)).toEqual([
      '/customers/c-1',
      '/customers/c-2',
    ]);
    expect(api.changes).toBe(2);
    expect(api.customers.get('c-1')?.name).toBe('Ada A');
    expect(api.customers.get('c-2')?.name).toBe('Grace B');
    expect(await b.evaluate(async () => (await client.queuedCommands()).length)).toBe(0);
    await expect.poll(() => b.evaluate(() => client.status.queued), POLL).toBe(0);

    // Both push at the same moment with nothing queued: still nothing sent twice.
    app.platformReachable = false;
    await b.evaluate((ctx) => client.action('update-customer', ctx), rename('c-1', 'Ada B'));
    app.platformReachable = true;
    const both = await Promise.all([
      a.evaluate(() => client.pushQueue()),
      b.evaluate(() => client.pushQueue()),
    ]);
    expect(both.map((r: { sent: number }) => r.sent).sort()).toEqual([0, 1]);
    expect(api.changes).toBe(3);
    expect(api.customers.get('c-1')?.name).toBe('Ada B');
  }, 180_000);
});
