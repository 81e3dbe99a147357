import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';

const SERVE = join(import.meta.dirname, '..', '..', 'examples', 'web-app', 'serve.mjs');
/** Where the screenshots go: a temp folder, or RESTFN_SCREENSHOTS (CI keeps that folder as an artifact). */
const SHOTS = process.env.RESTFN_SCREENSHOTS ?? join(tmpdir(), 'restfn-web-app-screens');

/** The documented command, as a subprocess on free ports; its printed addresses once it serves. */
async function serveExample() {
  const child = spawn(process.execPath, [SERVE, '--port', '0', '--api-port', '0'], {
    env: { ...process.env, NO_COLOR: '1' },
  });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  child.stderr.on('data', (c) => {
    out += c;
  });
  const ended = new Promise((resolve) => child.on('close', resolve));
  onTestFinished(async () => {
    child.kill('SIGTERM');
    await ended;
  });
  const app = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /^open (http:\/\/\S+)/m.exec(out);
      if (match) resolve(match[1]!);
    });
    void ended.then(() => reject(new Error(`serve.mjs ended before serving:\n${out}`)));
  });
  const api = /^demo API on (http:\/\/\S+)/m.exec(out)![1]!;
  return { app, api, output: () => out };
}

const text = (page: Page, selector: string) => page.locator(selector).innerText();
/** Waits until the element's text is exactly `expected` (the app redraws as the client reports). */
async function untilText(page: Page, selector: string, expected: string) {
  try {
    await page.waitForFunction(
      `document.querySelector(${JSON.stringify(selector)})?.textContent === ${JSON.stringify(expected)}`,
    );
  } catch (error) {
    const shown = await page.locator('header, #message').allInnerTexts();
    throw new Error(`${selector} never said ${expected}; the page shows ${JSON.stringify(shown)}`, {
      cause: error,
    });
  }
}
/** How far the page reaches past the viewport sideways (0: it fits). */
/** The demo API's record, as the service has it. */
async function remoteName(api: string, id: string): Promise<string> {
  return ((await (await fetch(`${api}/customers/${id}`)).json()) as { name: string }).name;
}
const overflow = (page: Page) =>
  page.evaluate<number>(
    'Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth',
  );

describe('the example web app (examples/web-app)', () => {
  it('serve.mjs serves it against restfn serve: the list shows the demo customers; an edit offline changes the row and queues; back online the queue empties and the service has the new name', async () => {
    const { app, api, output } = await serveExample();
    const browser = await launchChromium();
    onTestFinished(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(app);

    await untilText(page, '#count', '(60)');
    expect(await text(page, '[data-id="c-007"] .name')).toBe('Customer 7');
    expect(await text(page, '[data-id="c-007"] .region')).toBe('EU');
    expect(await text(page, '#network')).toBe('Online');
    expect(await text(page, '#queue')).toBe('Queue: 0');

    await context.setOffline(true);
    await untilText(page, '#network', 'Offline');
    await page.locator('[data-id="c-007"]').click();
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Save' }).click();
    await untilText(page, '#queue', 'Queue: 1');
    await untilText(page, '[data-id="c-007"] .name', 'Ada Lovelace');
    expect(await text(page, '#network')).toBe('Offline');
    // The service has not heard of it yet.
    expect(await remoteName(api, 'c-007')).toBe('Customer 7');

    // What the README describes: offline, one change queued, the edit form open on it.
    await page.locator('[data-id="c-007"]').click();
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'web-app-desktop.png') });
    expect(await overflow(page)).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SHOTS, 'web-app-phone.png') });
    expect(await overflow(page)).toBe(0);
    await page.getByRole('button', { name: 'Cancel' }).click();

    // Back online: the client pushes the queue on the browser's `online` event.
    await context.setOffline(false);
    await untilText(page, '#queue', 'Queue: 0');
    await untilText(page, '#network', 'Online');
    expect(await remoteName(api, 'c-007')).toBe('Ada Lovelace');
    expect(await text(page, '[data-id="c-007"] .name')).toBe('Ada Lovelace');

    // The page's token is the platform's secret: the command never prints it.
    const token = await page.locator('meta[name="restfn-token"]').getAttribute('content');
    expect(token).toMatch(/^rfn_/);
    expect(output()).not.toContain(token);
    expect(output()).not.toContain(token!.slice(4, 20));
  }, 240_000);
});
