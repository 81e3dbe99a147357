import { describe, expect, it } from 'vitest';
import { browserApp, browserPage, openClient, openFailure, type PageClient } from '../helpers/browser-app.js';

// The page's client: `window.client` (browser-app.ts), referred to inside page.evaluate.
declare const client: PageClient;
declare const seen: { changes: string[][]; statuses: Array<Record<string, unknown>> };
declare const failure: (error: unknown) => Record<string, unknown>;

const POLL = { timeout: 90_000 };

describe('restfn/client offline, in Chromium', () => {
  it("a record created offline gets the service's id, in its row and in a later queued command that refers to it", async () => {
    const { api, token, app } = await browserApp([]);
    const { page } = await browserPage();
    await page.goto(`${app.url}/`);
    await openClient(page, token);
    await page.evaluate(() => client.sync('customers'));

    app.platformReachable = false;
    const offline = await page.evaluate(async () => {
      const made = await client.action('create-customer', {
        components: { name: { state: { value: 'Lin' } }, region: { state: { value: 'eu' } } },
      });
      await client.action('update-customer', {
        current: { item: { id: made.record } },
        components: { name: { state: { value: 'Lin Wei' } } },
      });
      return {
        record: made.record as string,
        rows: await client.query('SELECT id, data FROM [customers]'),
        queued: await client.queuedCommands(),
      };
    });
    expect(offline.record).toMatch(/^_tmp_/);
    expect(offline.rows).toEqual([
      { id: offline.record, data: { id: offline.record, name: 'Lin Wei', region: 'eu' } },
    ]);
    expect(offline.queued.map((c: PageClient) => [c.type, c.record, c.payload.parameters.id])).toEqual([
      ['create', offline.record, undefined],
      ['update', offline.record, offline.record],
    ]);

    // Back online, the service refuses the update for now: the create goes, the update waits, and
    // by then both the row and the waiting command carry the service's id.
    let refusing = true;
    api.intercept = (req, res) => {
      if (!refusing || req.method !== 'PATCH') return false;
      res.writeHead(503).end();
      return true;
    };
    app.platformReachable = true;
    const half = await page.evaluate(async () => ({
      push: await client.pushQueue(),
      rows: await client.query('SELECT id, data FROM [customers]'),
      queued: await client.queuedCommands(),
    }));
    expect(half.push).toMatchObject({ sent: 1, waiting: 1, remaining: 1 });
    const id = [...api.customers.keys()][0];
    expect(id).toMatch(/^c-\d+$/);
    expect(half.rows).toEqual([{ id, data: { id, name: 'Lin Wei', region: 'eu' } }]);
    expect(half.queued).toHaveLength(1);
    expect(half.queued[0]).toMatchObject({ type: 'update', record: id, payload: { parameters: { id } } });

    refusing = false;
    const done = await page.evaluate(async () => ({
      push: await client.pushQueue(),
      queued: await client.queuedCommands(),
    }));
    expect(done.push).toMatchObject({ sent: 1, remaining: 0 });
    expect(done.queued).toEqual([]);
    expect([...api.customers.values()]).toEqual([{ id, name: 'Lin Wei', region: 'eu' }]);
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  }, 180_000);

  it("the page's online event pushes the queue: a push that fails for the network leaves the command waiting; the next online event sends it", async () => {
    const { api, token, app } = await browserApp([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    const { context, page } = await browserPage();
    await page.goto(`${app.url}/`);
    await openClient(page, token);
    await page.evaluate(() => client.sync('customers'));

    await context.setOffline(true);
    app.platformReachable = false;
    const first = await page.evaluate(async () => {
      await client.action('update-customer', {
        current: { item: { id: 'c-1' } },
        components: { name: { state: { value: 'Ada Lovelace' } } },
      });
      return { queued: await client.queuedCommands(), status: client.status };
    });
    // The Node queue's rules: a network failure waits (attempt counted, never sent, a next attempt).
    expect(first.queued).toHaveLength(1);
    expect(first.queued[0]).toMatchObject({
      state: 'waiting',
      attempts: 1,
      error: { code: 'NETWORK_ERROR', notSent: true },
    });
    expect(first.queued[0].nextAttempt).toEqual(expect.any(String));
    expect(first.status).toMatchObject({ online: false, queued: 1 });

    // The browser says it is online, but the platform still cannot be reached: the push the event
    // started (in the worker) fails the same way and counts a second attempt.
    await context.setOffline(false);
    await expect
      .poll(() => page.evaluate(async () => (await client.queuedCommands())[0]?.attempts), POLL)
      .toBe(2);
    const second = await page.evaluate(() => client.queuedCommands());
    expect(second[0]).toMatchObject({ state: 'waiting', error: { code: 'NETWORK_ERROR', notSent: true } });
    expect(second[0].nextAttempt > first.queued[0].nextAttempt).toBe(true);
    expect(api.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);

    // The network back: the next online event sends the command at once (it waited for the
    // network, not for its time).
    await context.setOffline(true);
    app.platformReachable = true;
    await context.setOffline(false);
    await expect.poll(() => api.customers.get('c-1')?.name, POLL).toBe('Ada Lovelace');
    await expect
      .poll(() => page.evaluate(() => client.status), POLL)
      .toMatchObject({ online: true, queued: 0 });
    expect(await page.evaluate(() => client.queuedCommands())).toEqual([]);
    expect(api.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    const statuses = await page.evaluate(() => seen.statuses);
    expect(statuses.some((s) => s.online === false)).toBe(true);
  }, 180_000);

  it('errors the app handles are coded and readable in the page', async () => {
    const { token, app } = await browserApp([{ id: 'c-1', name: 'Ada', region: 'eu' }]);
    const { context, page } = await browserPage();

    // Never opened online on this device: nothing to run offline.
    app.platformReachable = false;
    await page.goto(`${app.url}/`);
    const never = await openFailure(page, token);
    expect(never).toMatchObject({
      isClientError: true,
      name: 'RestfnClientError',
      code: 'SERVER_UNREACHABLE',
    });
    expect(never?.message).toMatch(/open the app online once/);
    app.platformReachable = true;

    const refused = await openFailure(page, 'not-a-token');
    expect(refused).toMatchObject({ isClientError: true, code: 'AUTH_REQUIRED' });
    expect(refused?.message).toEqual(expect.any(String));

    await openClient(page, token);
    const failures = await page.evaluate(async () => {
      const caught = async (work: () => Promise<unknown>) => {
        try {
          await work();
          return undefined;
        } catch (error) {
          return failure(error);
        }
      };
      return {
        datasource: await caught(() => client.sync('no-such-datasource')),
        rows: await caught(() => client.rows('no-such-datasource')),
        badSql: await caught(() => client.query('SELECT FROM WHERE')),
        write: await caught(() => client.query("DELETE FROM [customers] WHERE id = 'c-1'")),
        action: await caught(() => client.action('no-such-action')),
      };
    });
    expect(failures.datasource).toMatchObject({ isClientError: true, code: 'DATASOURCE_NOT_FOUND' });
    expect(failures.datasource?.message).toMatch(/no-such-datasource/);
    expect(failures.rows).toMatchObject({ code: 'DATASOURCE_NOT_FOUND' });
    expect(failures.badSql).toMatchObject({ isClientError: true, code: 'QUERY_FAILED' });
    expect(failures.write).toMatchObject({ isClientError: true, code: 'QUERY_NOT_READ_ONLY' });
    // Said in the app's terms, not the CLI's.
    expect(failures.write?.message).toMatch(/client\.query and client\.watch only read/);
    expect(failures.write?.message).not.toMatch(/restfn (query|sync)/);
    expect(failures.action).toMatchObject({ isClientError: true });
    expect(failures.action?.code).not.toBe('INTERNAL');

    // A sync needs the platform: offline it fails with the network's code (an action would queue).
    app.platformReachable = false;
    const sync = await page.evaluate(() => client.sync('customers').then(() => undefined, failure));
    expect(sync).toMatchObject({ isClientError: true, code: 'NETWORK_ERROR' });
    expect(await page.evaluate(() => client.status)).toMatchObject({ online: false });
    await context.close();
  }, 180_000);
});
