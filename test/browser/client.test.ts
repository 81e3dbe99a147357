import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { appServer } from '../helpers/app-server.js';
import { launchChromium } from '../helpers/chromium.js';
import { startPlatformProcess } from '../helpers/platform.js';
import { customersApi, queueSolution } from '../helpers/queue.js';

const dist = join(import.meta.dirname, '..', '..', 'dist', 'browser');

/** The platform with the customers solution published, an app user's token, and the app's server. */
async function setting(seed: Array<Record<string, unknown>>) {
  const api = await customersApi(seed);
  const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
  const admin = platform.adminToken;
  await platform.api('POST', '/api/v1/users', {
    token: admin,
    body: { name: 'ann', role: 'author', solutions: ['crm'] },
  });
  await platform.api('POST', '/api/v1/users', {
    token: admin,
    body: { name: 'uma', role: 'user', solutions: ['crm'] },
  });
  const author = (await platform.api('POST', '/api/v1/users/ann/tokens', { token: admin, body: {} })).body
    .token;
  const token = (await platform.api('POST', '/api/v1/users/uma/tokens', { token: admin, body: {} })).body
    .token;
  const published = await platform.api('PUT', '/api/v1/solutions/crm', {
    token: author,
    body: { files: queueSolution(api.url) },
  });
  expect(published.status).toBe(201);
  const page = mkdtempSync(join(tmpdir(), 'restfn-app-'));
  writeFileSync(join(page, 'index.html'), PAGE);
  const app = await appServer({ '/restfn/client/': dist, '/': page }, platform.url);
  return { api, platform, token, app };
}

async function browserPage() {
  const browser = await launchChromium();
  onTestFinished(() => browser.close());
  const context = await browser.newContext();
  return { browser, context, page: await context.newPage() };
}

/** The app's page: it imports the client from the served browser build, as an app does. */
const PAGE = `<!doctype html><title>app</title>
<script type="module">
import { createClient } from '/restfn/client/index.js';
window.openClient = async (token) => {
  window.client = await createClient({ server: location.origin, token, solution: 'crm' });
  return window.client.status;
};
</script>`;

/** Opens the client in the page (kept as window.client) and returns its status. */
async function open(page: Page, token: string) {
  await page.waitForFunction(() => 'openClient' in globalThis);
  return page.evaluate(
    (token) => (globalThis as unknown as { openClient(t: string): Promise<unknown> }).openClient(token),
    token,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: the page's client, typed loosely in tests
type PageClient = any;

describe('restfn/client in Chromium', () => {
  it('syncs a datasource into OPFS and queries it; offline, an action changes the row and queues; a reload keeps both; back online, the push makes the service agree', async () => {
    const { api, token, app } = await setting([
      { id: 'c-1', name: 'Ada', region: 'eu' },
      { id: 'c-2', name: 'Grace', region: 'us' },
    ]);
    const { page } = await browserPage();
    await page.goto(`${app.url}/`);
    const status = await open(page, token);
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
    const reopened = await open(page, token);
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
