import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { type StaticServer, staticServer } from '../helpers/static-server.js';
import { DATABASE_CASES } from './database-cases.js';
import { buildTestPage, type TestPage } from './wasm-page.js';

// src/browser/worker on SQLite WebAssembly, in a dedicated worker of a page in Debian's Chromium,
// served from 127.0.0.1 without cross-origin isolation (as an app's own server would serve it).

let testPage: TestPage;
let server: StaticServer;
let browser: Browser;

beforeAll(async () => {
  testPage = await buildTestPage();
  server = await staticServer(testPage.folder);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  testPage?.remove();
});

async function tab(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => 'rpc' in globalThis);
  return page;
}

function rpc<T = unknown>(page: Page, op: string, ...args: unknown[]): Promise<T> {
  return page.evaluate(
    ([name, values]) =>
      (globalThis as unknown as { rpc: (...a: unknown[]) => Promise<unknown> }).rpc(name, ...values),
    [op, args] as const,
  ) as Promise<T>;
}

/** What a failed call in the page threw: its name, code and message. */
async function failure(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the call did not fail');
}

const appName = () => `app-${randomUUID().slice(0, 8)}`;

describe('the conformance table on the WebAssembly database', () => {
  let results: Promise<Array<{ name: string; result: unknown }>> | undefined;
  const conformance = async () => {
    results ??= (async () => {
      const context = await browser.newContext();
      try {
        return await rpc<Array<{ name: string; result: unknown }>>(await tab(context), 'conformance');
      } finally {
        await context.close();
      }
    })();
    return results;
  };

  test.each(DATABASE_CASES.map((c) => [c.name, c] as const))('wasm: %s', async (name, c) => {
    const found = (await conformance()).find((r) => r.name === name);
    expect(found?.result).toEqual(c.expected);
  });
});

test('statements the caller dropped are finalized when the connection is detached', async () => {
  const context = await browser.newContext();
  try {
    // The FinalizationRegistry may finalize some earlier (a garbage collection): at most 50 remain.
    const { before, after } = await rpc<{ before: number; after: number }>(
      await tab(context),
      'finalized',
      50,
    );
    expect(before).toBeGreaterThan(0);
    expect(after).toBe(0);
  } finally {
    await context.close();
  }
});

describe('the database in OPFS', () => {
  test("opens persistent in the app's SAH pool, journal TRUNCATE; LocalStore and CommandQueue run on it", async () => {
    const context = await browser.newContext();
    try {
      const page = await tab(context);
      expect(await rpc(page, 'open', appName())).toEqual({ persistent: true, journalMode: 'truncate' });
      expect(await rpc(page, 'local')).toEqual({
        rows: [{ id: 'c-007', name: 'Ada' }],
        queue: [{ id: 'cmd-1', type: 'update', state: 'queued', payload: { parameters: { name: 'Ada' } } }],
        merged: { m: '{"a":1,"b":2}' },
        // LocalStore asks for WAL; the pool cannot give it, the journal stays as opened.
        journalMode: 'truncate',
      });
    } finally {
      await context.close();
    }
  });

  test('rows written survive a reload of the page', async () => {
    const context = await browser.newContext();
    try {
      const name = appName();
      const page = await tab(context);
      await rpc(page, 'open', name);
      await rpc(
        page,
        'exec',
        "CREATE TABLE kept (id TEXT PRIMARY KEY); INSERT INTO kept VALUES ('a'), ('b')",
      );
      await page.reload();
      await page.waitForFunction(() => 'rpc' in globalThis);
      expect(await rpc(page, 'open', name)).toMatchObject({ persistent: true });
      expect(await rpc(page, 'all', 'SELECT id FROM kept ORDER BY id')).toEqual([{ id: 'a' }, { id: 'b' }]);
    } finally {
      await context.close();
    }
  });

  test('without OPFS the database is in memory, and says so', async () => {
    const context = await browser.newContext();
    try {
      const page = await tab(context);
      const opened = await rpc<{ persistent: boolean; reason: string }>(page, 'openWithoutOpfs', appName());
      expect(opened.persistent).toBe(false);
      expect(opened.reason).toMatch(/Origin Private File System is not available/);
      await rpc(page, 'exec', 'CREATE TABLE t (x); INSERT INTO t VALUES (1)');
      expect(await rpc(page, 'all', 'SELECT x FROM t')).toEqual([{ x: 1 }]);
    } finally {
      await context.close();
    }
  });
});

describe('two tabs of one app', () => {
  test("write through leases in turns: no row lost or doubled, each sees the other's", async () => {
    const context = await browser.newContext();
    try {
      const name = appName();
      const [a, b] = [await tab(context), await tab(context)];
      await rpc(a, 'open', name);
      await rpc(a, 'exec', 'CREATE TABLE items (tab TEXT NOT NULL, n INTEGER NOT NULL UNIQUE)');
      await rpc(b, 'open', name);
      // Each operation reads the highest n, awaits, then writes n + 1: the lease keeps the other
      // tab out for the whole operation, or the two would write the same n (UNIQUE would refuse it).
      const [generationA, generationB] = await Promise.all([
        rpc<number>(a, 'counter', 'a', 15),
        rpc<number>(b, 'counter', 'b', 15),
      ]);
      const expected = Array.from({ length: 30 }, (_, i) => i + 1);
      for (const page of [a, b]) {
        const rows = await rpc<Array<{ tab: string; n: number }>>(
          page,
          'all',
          'SELECT tab, n FROM items ORDER BY n',
        );
        expect(rows.map((r) => r.n)).toEqual(expected);
        expect(rows.filter((r) => r.tab === 'a')).toHaveLength(15);
      }
      // The files changed hands: each worker opened its connection more than once.
      expect(generationA).toBeGreaterThan(1);
      expect(generationB).toBeGreaterThan(1);
    } finally {
      await context.close();
    }
  });

  test('a statement prepared before a hand-over runs after it, functions and settings are back; outside the lease the database refuses', async () => {
    const context = await browser.newContext();
    try {
      const name = appName();
      const [a, b] = [await tab(context), await tab(context)];
      await rpc(a, 'open', name);
      await rpc(a, 'exec', 'CREATE TABLE items (tab TEXT NOT NULL, n INTEGER NOT NULL UNIQUE)');
      await rpc(a, 'keep', 'INSERT INTO items (tab, n) VALUES (?, ?)');
      await rpc(a, 'runKept', ['a', 1]);
      const before = await rpc<number>(a, 'generation');
      // Tab b opens and writes: tab a, idle, hears it waiting and hands the files over.
      await rpc(b, 'open', name);
      await rpc(b, 'exec', "INSERT INTO items VALUES ('b', 2)");
      expect(await failure(rpc(a, 'outside'))).toMatch(/DATABASE_UNAVAILABLE.*used outside its lease/);
      expect(await rpc(a, 'runKept', ['a', 3])).toEqual({ changes: 1, lastInsertRowid: 3 });
      expect(await rpc<number>(a, 'generation')).toBeGreaterThan(before);
      // The new connection has the function and the setting the old one was given.
      expect(await rpc(a, 'connectionState')).toEqual({ cacheSize: 777, fn: { t: 'a' } });
      expect(await rpc(b, 'all', 'SELECT tab, n FROM items ORDER BY n')).toEqual([
        { tab: 'a', n: 1 },
        { tab: 'b', n: 2 },
        { tab: 'a', n: 3 },
      ]);
    } finally {
      await context.close();
    }
  });
});
