import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect, onTestFinished } from 'vitest';
import { type AppServer, appServer } from './app-server.js';
import { launchChromium } from './chromium.js';
import { type PlatformProcess, startPlatformProcess } from './platform.js';
import { type CustomersApi, customersApi, queueSolution } from './queue.js';

// An app on restfn/client in Chromium against a real `restfn serve`: the customers solution
// (queue.ts) published as 'crm', an app user's token, the app's server (the browser build at
// /restfn/client/, the page at /, /api/ passed to the platform) and one browser.

const dist = join(import.meta.dirname, '..', '..', 'dist', 'browser');

// biome-ignore lint/suspicious/noExplicitAny: the page's client, typed loosely in tests
export type PageClient = any;

export interface BrowserApp {
  readonly api: CustomersApi;
  readonly platform: PlatformProcess;
  /** The app user's token. */
  readonly token: string;
  readonly app: AppServer;
}

/** The platform with the customers solution published, an app user's token, and the app's server. */
export async function browserApp(seed: Array<Record<string, unknown>>): Promise<BrowserApp> {
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

/** One Chromium (closed when the test ends), a context (one profile: one OPFS) and its first page. */
export async function browserPage(): Promise<{ context: BrowserContext; page: Page }> {
  const browser = await launchChromium();
  onTestFinished(() => browser.close());
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

/**
 * The app's page: it imports the client from the served browser build, as an app does. It keeps
 * the client as `window.client`, what its events said in `window.seen`, and a failed open's error
 * as plain data.
 */
const PAGE = `<!doctype html><title>app</title>
<script type="module">
import { createClient, RestfnClientError } from '/restfn/client/index.js';
window.seen = { changes: [], statuses: [] };
window.openClient = async (token) => {
  window.client = await createClient({ server: location.origin, token, solution: 'crm' });
  window.client.on('change', (change) => window.seen.changes.push(change.tables));
  window.client.on('status', (status) => window.seen.statuses.push(status));
  return window.client.status;
};
window.openFailure = async (token) => {
  try {
    await createClient({ server: location.origin, token, solution: 'crm' });
    return undefined;
  } catch (error) {
    return failure(error);
  }
};
window.failure = (error) => ({
  isClientError: error instanceof RestfnClientError,
  name: error.name,
  code: error.code,
  message: error.message,
  credential: error.credential,
});
</script>`;

/** Opens the client in the page (kept as window.client) and returns its status. */
export async function openClient(page: Page, token: string): Promise<unknown> {
  await page.waitForFunction(() => 'openClient' in globalThis);
  return page.evaluate(
    (token) => (globalThis as unknown as { openClient(t: string): Promise<unknown> }).openClient(token),
    token,
  );
}

/** What opening a client in the page failed with (undefined: it opened). */
export async function openFailure(page: Page, token: string): Promise<Record<string, unknown> | undefined> {
  await page.waitForFunction(() => 'openFailure' in globalThis);
  return page.evaluate(
    (token) =>
      (
        globalThis as unknown as { openFailure(t: string): Promise<Record<string, unknown> | undefined> }
      ).openFailure(token),
    token,
  );
}
