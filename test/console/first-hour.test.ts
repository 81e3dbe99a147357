import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { json, testServer } from '../helpers/http-server.js';
import { type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';

/**
 * What a new user's trial of the console found (issue 38, round 2), on a real `restfn serve` at
 * 1280 and 390 px: the log's legend as the routes audit, a file parameter's picker, an action's
 * key field first, admins' solutions, the shown page's sent url, whole JSON values, a screen
 * opened by its address in view, and a load that logs no error. Screenshots go to the temp folder.
 */
const SHOTS = join(tmpdir(), 'restfn-console-first-hour');
const PASSWORD = 'first-hour-pass-42Xy';
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
/** A timestamp as services send them: at 390 px it must not break in the middle. */
const STAMP = '2026-11-27T22:15:07.123456+01:00';

// The page's globals, for the functions evaluated in it (the tests are compiled without the DOM library).
declare const document: {
  querySelectorAll(
    selector: string,
  ): ArrayLike<{ textContent: string; getClientRects(): ArrayLike<unknown> }>;
};

let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A platform with one solution: a paged list, a file upload, an action on a table; stopped when the test ends. */
async function setUp() {
  const service = await testServer((req, res) => {
    if (req.url.startsWith('/upload')) return json(res, 201, { stored: true });
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);
    return json(res, 200, {
      items: [{ id: page, title: `Ticket ${page}`, created_at_on_the_service: STAMP }],
      next: page < 3 ? page + 1 : null,
    });
  });
  const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
  const admin = platform.adminToken;
  await platform.api('PATCH', '/api/v1/users/admin', { token: admin, body: { password: PASSWORD } });
  const files = {
    // A solution's worth of functions: on a phone their list is taller than the screen.
    ...Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [
        `functions/rest-get-customer-${i + 1}.platform`,
        `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/items\n`,
      ]),
    ),
    'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/items\nparameters:\n  page: { location: query, type: int, value: 1 }\noutputTransform: items\ncontinuation:\n  when: =@ctx.response.body.next != null\n  parameters:\n    page: { location: query, type: int, value: =@ctx.response.body.next }\n`,
    'functions/rest-upload-note.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${service.url}/upload\nparameters:\n  Content-Type: { location: header, type: string, value: multipart/form-data }\n  file: { location: body, type: file, required: true }\n`,
    'datasources/items.platform':
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: items\n      function: rest-get-items\n',
    'actions/close-item.platform':
      'type: action.execute-entity\noptions:\n  provider: DATA_PROVIDER_REST\n  entity: items\n  method: update\n  function: rest-get-items\n  data:\n    status: =@ctx.components.status.state.value\n    title: =@ctx.components.title.state.value\n    id: =@ctx.current.item.id\n',
  };
  expect((await platform.api('PUT', '/api/v1/solutions/crm', { token: admin, body: { files } })).status).toBe(
    201,
  );
  // One of each audited kind that runs a function: what the console's Preview and an API client
  // send (`execute`), and what `restfn run --server` sends (remote-calls.ts: `call`).
  await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-items/execute', {
    token: admin,
    body: {},
  });
  await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-items/call', {
    token: admin,
    body: { values: { page: 1 } },
  });
  return { platform, service };
}

/** Everything the browser logs as an error, and every answer that failed, while `page` is open. */
function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  return problems;
}

async function open(page: Page, platform: PlatformProcess, hash: string) {
  await page.goto(`${platform.url}/console/${hash}`);
  await page.waitForLoadState('networkidle');
}

const overflow = (page: Page, width: number) =>
  page.evaluate<number>(`document.documentElement.scrollWidth - ${width}`);

describe("the console after a new user's trial (issue 38, round 2)", () => {
  for (const size of SIZES) {
    it(`at ${size.width} px: what the trial found is fixed`, async () => {
      const { platform, service } = await setUp();
      const context = await browser.newContext({
        viewport: { width: size.width, height: size.height },
        isMobile: size.width < 600,
      });
      const page = await context.newPage();
      const shot = (name: string) =>
        page.screenshot({ path: join(SHOTS, `${size.name}-${name}.png`), fullPage: true });
      try {
        // A first load, signed out: no 401 for the session check, no 404 for an icon.
        const problems = problemsOf(page);
        await open(page, platform, '');
        await page.getByLabel('User name').fill('admin');
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        // Opened by its address (a link, a reload): the screen is in view, not under the navigation.
        await open(page, platform, '#/s/crm/executions');
        const log = page.getByRole('region', { name: 'Executions' });
        await expect.poll(() => log.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
        const heading = await log.getByRole('heading', { name: 'Executions' }).boundingBox();
        expect(heading!.y).toBeGreaterThanOrEqual(0);
        expect(heading!.y).toBeLessThan(size.height / 2);
        expect(problems).toEqual([]);
        // The legend as the routes audit: `restfn run --server` is a call, never an execute.
        const [execute, call] = await log.getByRole('definition').allTextContents();
        expect(execute).not.toContain('--server');
        expect(call).toContain('restfn run, sync or action with --server');
        expect(await log.locator('tbody .event', { hasText: /^call$/ }).getAttribute('title')).toContain(
          '--server',
        );
        await shot('1-executions');

        // Users: an admin's solutions are all of them, not a blank cell.
        await open(page, platform, '#/users');
        const adminRow = page
          .locator('tr', { hasText: 'admin' })
          .filter({ has: page.locator('td') })
          .first();
        expect((await adminRow.locator('td[data-label="Solutions"]').textContent())?.trim()).toBe('all');

        // A file parameter: a picker that reads the file into the data URI the API takes.
        await open(page, platform, '#/s/crm/f/rest-upload-note');
        const upload = page.getByLabel('Preview of rest-upload-note');
        await upload.getByLabel('file: choose a file').setInputFiles({
          name: 'note.txt',
          mimeType: 'text/plain',
          buffer: Buffer.from('a note from disk\n'),
        });
        const text = upload.locator('#param-file');
        await expect
          .poll(() => text.inputValue())
          .toBe(
            `data:text/plain;name=note.txt;base64,${Buffer.from('a note from disk\n').toString('base64')}`,
          );
        expect(await upload.textContent()).toContain('Sent as a data URI: note.txt, text/plain, 17 bytes');
        await shot('2-file');
        await upload.getByRole('button', { name: 'Preview' }).click();
        await page.getByRole('button', { name: 'Send POST' }).click();
        await expect.poll(() => service.requests.filter((r) => r.url === '/upload').length).toBe(1);
        const sentFile = service.requests.find((r) => r.url === '/upload')!.body;
        expect(sentFile).toContain('filename="note.txt"');
        expect(sentFile).toContain('Content-Type: text/plain');
        expect(sentFile).toContain('a note from disk');

        // All pages: the header's "Sent" is the shown page's; a url breaks after its path's / ? &
        // only (never right after the host); a timestamp stays whole.
        await open(page, platform, '#/s/crm/f/rest-get-items');
        await page.getByRole('button', { name: 'All pages' }).click();
        const pages = page.getByLabel('Pages');
        await expect.poll(() => pages.locator('.status').textContent()).toContain('3 pages, all of them');
        expect(await page.locator('.sent').textContent()).toContain('/items?page=1');
        expect(await page.locator('.sent').textContent()).not.toContain('page=3');
        await pages.getByRole('button', { name: 'Next page' }).click();
        expect(await page.locator('.sent').textContent()).toContain('/items?page=2');
        expect(await pages.locator('.sent-page code').innerHTML()).not.toMatch(/:\d+\/<wbr>/);
        const stampLines = await page.evaluate(
          (stamp) =>
            Array.from(document.querySelectorAll('.json-string'))
              .filter((s) => s.textContent.includes(stamp))
              .map((s) => s.getClientRects().length),
          STAMP,
        );
        expect(stampLines.length).toBeGreaterThan(0);
        expect(stampLines.every((n) => n === 1)).toBe(true);
        expect(await overflow(page, size.width)).toBeLessThanOrEqual(0);
        await shot('3-all-pages');

        // An action: the record's key first (the platform lists what it reads alphabetically, so
        // `components.*` came before `current.item.id`); the queued calls say what the device adds.
        await open(page, platform, '#/s/crm/a/close-item');
        const action = page.getByLabel('Preview of action close-item');
        expect(await action.locator('label .param-name').allTextContents()).toEqual([
          'Item id',
          'Status field',
          'Title field',
        ]);
        await action.getByRole('textbox').first().fill('3');
        await action.getByRole('button', { name: 'Preview' }).click();
        await expect
          .poll(() => action.locator('.queue-note').textContent())
          .toContain('on a device the call also sends fields of its local row');
        expect(await overflow(page, size.width)).toBeLessThanOrEqual(0);
        await shot('4-action');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
