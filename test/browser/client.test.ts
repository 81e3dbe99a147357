import { describe, expect, it } from 'vitest';
import { browserApp, browserPage, openClient, type PageClient } from '../helpers/browser-app.js';

describe('restfn/client in Chromium', () => {
  it('syncs a datasource into OPFS and queries it; offline, an action changes the row and queues; a reload keeps both; back online, the push makes the service agree', async () => {
    const { api, token, app } = await browserApp([
      { id: 'c-1', name: 'Ada', region: 'eu' },
      { id: 'c-2', name: 'Grace', region: 'us' },
    ]);
    const { page } = await browserPage();
    await page.goto(`${app.url}/`);
    const status = await openClient(page, token);
    expect(status).toMatchObject({ persistent: true, fromCache: false, queued: 0 });

    const rows = await page.evaluate(async () => {
      const client = (globalThis as unknown as { client: PageClient }).client;
      await client.sync('customers');
      return client.query('SELECT id, data FROM [customers] ORDER BY id');
    });
    expect(rows).toEqual([
      { id: 'c-1', data: { id: 'c-1', name: 'Ada', region: 'eu' } },
      { id: 'c-2', data: { id: 'c-2', name: 'Grace', region: 'us' } },
    ]);

    app.platformReachable = false;
    const offline = await page.evaluate(async () => {
      const client = (globalThis as unknown as { client: PageClient }).client;
      await client.action('update-customer', {
        current: { item: { id: 'c-1' } },
        components: { name: { state: { value: 'Ada Lovelace' } } },
      });
      return {
        row: await client.query("SELECT data FROM [customers] WHERE id = 'c-1'"),
        queued: (await client.queuedCommands()).length,
      };
    });
    expect(offline.row).toEqual([{ data: { id: 'c-1', name: 'Ada Lovelace', region: 'eu' } }]);
    expect(offline.queued).toBe(1);
    expect(api.customers.get('c-1')?.name).toBe('Ada');

    // A reload, still offline: the client opens from the copy of the solution it kept.
    await page.reload();
    const reopened = await openClient(page, token);
    expect(reopened).toMatchObject({ fromCache: true, queued: 1 });
    const kept = await page.evaluate(async () => {
      const client = (globalThis as unknown as { client: PageClient }).client;
      return client.query("SELECT data FROM [customers] WHERE id = 'c-1'");
    });
    expect(kept).toEqual([{ data: { id: 'c-1', name: 'Ada Lovelace', region: 'eu' } }]);

    app.platformReachable = true;
    const pushed = await page.evaluate(async () => {
      const client = (globalThis as unknown as { client: PageClient }).client;
      await client.pushQueue();
      return (await client.queuedCommands()).length;
    });
    expect(pushed).toBe(0);
    expect(api.customers.get('c-1')?.name).toBe('Ada Lovelace');
  }, 120_000);
});
