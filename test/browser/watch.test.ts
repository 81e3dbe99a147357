import { describe, expect, it } from 'vitest';
import { browserApp, browserPage, openClient, type PageClient } from '../helpers/browser-app.js';

// The page's client and what its events said (browser-app.ts), referred to inside page.evaluate.
declare const client: PageClient;
declare const seen: { changes: string[][]; statuses: Array<Record<string, unknown>> };
declare const failure: (error: unknown) => Record<string, unknown>;
declare const calls: {
  customers: string[][];
  queue: number[];
  notes: number[];
  error?: Record<string, unknown>;
  stop(): void;
};

const POLL = { timeout: 90_000 };

describe('restfn/client live queries and events, in Chromium', () => {
  it('watch gives the rows at once and again only when a table it reads was written; change and status events say what changed', async () => {
    const { api, token, app } = await browserApp([
      { id: 'c-1', name: 'Ada', region: 'eu' },
      { id: 'c-2', name: 'Grace', region: 'us' },
    ]);
    const { page } = await browserPage();
    await page.goto(`${app.url}/`);
    await openClient(page, token);

    // Before the first sync: the tables they read are created empty, so each starts with no rows.
    await page.evaluate(() => {
      const w = globalThis as unknown as { calls: typeof calls };
      w.calls = { customers: [], queue: [], notes: [], stop: () => {} };
      w.calls.stop = client.watch(
        'SELECT id FROM [customers] ORDER BY id',
        {},
        (rows: Array<{ id: string }>) => w.calls.customers.push(rows.map((r) => r.id)),
      );
      client.watch('SELECT id FROM [_commandQueue]', {}, (rows: unknown[]) =>
        w.calls.queue.push(rows.length),
      );
      client.watch('SELECT id FROM [notes]', {}, (rows: unknown[]) => w.calls.notes.push(rows.length));
      client.watch(
        'SELECT FROM WHERE',
        {},
        () => {},
        (error: unknown) => {
          w.calls.error = failure(error);
        },
      );
    });
    const snapshot = () =>
      page.evaluate(async () => {
        await client.query('SELECT 1'); // after the re-runs the last operation started
        return { customers: calls.customers, queue: calls.queue, notes: calls.notes, changes: seen.changes };
      });
    await expect
      .poll(async () => {
        const s = await snapshot();
        return [s.customers.length, s.queue.length, s.notes.length];
      }, POLL)
      .toEqual([1, 1, 1]);
    expect(await page.evaluate(() => calls.error)).toMatchObject({
      isClientError: true,
      code: 'QUERY_FAILED',
    });

    // A sync writes the entity's table only.
    await page.evaluate(() => client.sync('customers'));
    let s = await snapshot();
    expect(s.changes).toEqual([['customers']]);
    expect(s.customers).toEqual([[], ['c-1', 'c-2']]);
    expect(s.queue).toEqual([0]);
    expect(s.notes).toEqual([0]);

    // Offline, an action writes its entity's table and the queue.
    app.platformReachable = false;
    const made = await page.evaluate(() =>
      client.action('create-customer', {
        components: { name: { state: { value: 'Lin' } }, region: { state: { value: 'eu' } } },
      }),
    );
    s = await snapshot();
    expect(s.changes.at(-1)).toEqual(['_commandQueue', 'customers']);
    expect(s.customers.at(-1)).toEqual([made.record, 'c-1', 'c-2'].sort());
    expect(s.queue).toEqual([0, 1]);
    expect(s.notes).toEqual([0]);
    const offline = await page.evaluate(() => seen.statuses.at(-1));
    expect(offline).toEqual({ online: false, version: 1, fromCache: false, persistent: true, queued: 1 });

    // The push writes the queue and, replacing the temporary id, the entity's table.
    app.platformReachable = true;
    await page.evaluate(() => client.pushQueue());
    s = await snapshot();
    const id = [...api.customers.keys()].find((k) => k !== 'c-1' && k !== 'c-2');
    expect(s.changes.at(-1)).toEqual(['_commandQueue', 'customers']);
    expect(s.customers.at(-1)).toEqual(['c-1', 'c-2', id].sort());
    expect(s.queue).toEqual([0, 1, 0]);
    expect(s.notes).toEqual([0]);
    const online = await page.evaluate(() => seen.statuses.at(-1));
    expect(online).toEqual({ online: true, version: 1, fromCache: false, persistent: true, queued: 0 });

    // A push with nothing to send writes nothing: no change event, no re-run. A stopped watch stays stopped.
    const before = s.changes.length;
    await page.evaluate(() => client.pushQueue());
    await page.evaluate(() => calls.stop());
    await page.evaluate(() =>
      client.action('update-customer', {
        current: { item: { id: 'c-1' } },
        components: { name: { state: { value: 'Ada L' } } },
      }),
    );
    s = await snapshot();
    expect(s.changes.length).toBe(before + 1);
    expect(s.customers).toHaveLength(4);
    expect(s.queue).toEqual([0, 1, 0, 0]);
    expect(s.notes).toEqual([0]);
  }, 180_000);
});
