import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

/**
 * A new author's solution as the docs recommend it: the base address in a path parameter whose
 * default reads `settings.custom.apiBase`. The console previews it as the CLI and the API run it, at
 * a desktop's and a phone's width, against a real local API on a real `restfn serve`.
 */
const SHOTS = join(tmpdir(), 'restfn-console-preview-defaults');
const PASSWORD = 'preview-pass-42Xy';
const SECRET = 'tk-live-9Rt2mX8vL3pZ7nB4cQ';
/** A long filter with no place to break (no hyphen, no space): on a phone its url must wrap anyway. */
const FILTER = 'statusopenandassignedtothesecondlinesupportteamineuropeandnorthafrica';

let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const base = (name: string) =>
  `  ${name}: { location: path, type: string, required: true, value: =@ctx.solution.settings.custom.apiBase }\n`;

async function publish() {
  const received: string[] = [];
  const service = await testServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    const url = new URL(req.url, 'http://x');
    if (req.headers['x-api-key'] !== SECRET) return json(res, 401, { error: 'no key' });
    if (url.pathname === '/tickets') {
      const page = Number(url.searchParams.get('page') ?? 1);
      if (page === 2 && url.searchParams.get('filter') === 'broken') return json(res, 503, { error: 'down' });
      return json(res, 200, {
        items: [{ id: page, title: `Ticket ${page}` }],
        next: page < 2 ? page + 1 : null,
      });
    }
    if (req.method === 'POST') return json(res, 201, { id: 'cm-1' });
    json(res, 404, { error: 'no such ticket' });
  });
  const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
  const admin = platform.adminToken;
  await platform.api('POST', '/api/v1/users', {
    token: admin,
    body: { name: 'alice', role: 'author', solutions: ['help'], password: PASSWORD },
  });
  const key = '  x-api-key: { location: header, type: secret, value: help-key }\n';
  const published = await platform.api('PUT', '/api/v1/solutions/help', {
    token: admin,
    body: {
      files: {
        'solution.yaml': `name: help\nsettings:\n  custom:\n    apiBase: ${service.url}\n`,
        'functions/rest-get-tickets.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: '{base}/tickets'\nparameters:\n${base('base')}  page: { location: query, type: int, value: 1 }\n  filter: { location: query, type: string, value: ${FILTER} }\n  who: { location: header, type: string, value: =@ctx.user.name }\n${key}outputTransform: items\ncontinuation:\n  when: =@ctx.response.body.next != null\n  parameters:\n${base('  base')}    page: { location: query, type: int, value: =@ctx.response.body.next }\n    filter: { location: query, type: string, value: =@ctx.parameters.filter }\n  ${key}`,
        'functions/rest-add-comment.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: '{base}/tickets/{id}/comments'\nparameters:\n${base('base')}  id: { location: path, type: string, required: true }\n  text: { location: body, type: string, value: Looked at it }\n${key}`,
        'functions/rest-get-ticket.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: '{base}/tickets/{id}'\nparameters:\n${base('base')}  id: { location: path, type: string, required: true }\n${key}`,
        'actions/comment-on-ticket.platform':
          'type: action.execute-entity\noptions:\n  provider: DATA_PROVIDER_REST\n  entity: tickets\n  method: update\n  function: rest-add-comment\n  data:\n    id: =@ctx.current.item.id\n    comment: =@ctx.components.comment-field.state.value\n  parameters:\n    id: =@ctx.record.id\n',
      },
    },
  });
  expect(published.status, published.text).toBe(201);
  await platform.api('PUT', '/api/v1/solutions/help/credentials/help-key', {
    token: admin,
    body: { kind: 'secret', value: SECRET, origins: [service.url] },
  });
  return { service, platform, received };
}

/** How far the page reaches past a phone's 390 px (0: nothing overflows sideways). */
const overflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - 390');

describe('previewing a function whose base address is a path parameter with an expression default', () => {
  it('the platform says what the defaults resolve to (settings only: never a credential or a user value)', async () => {
    const { service, platform } = await publish();
    const listed = await platform.api('GET', '/api/v1/solutions/help/functions', {
      token: platform.adminToken,
    });
    expect(listed.status).toBe(200);
    const tickets = listed.body.functions.find((f: { name: string }) => f.name === 'rest-get-tickets');
    const parameter = (name: string) => tickets.parameters.find((p: { name: string }) => p.name === name);
    expect(parameter('base')).toMatchObject({ required: true, resolved: service.url });
    // A user's value is worked out per execution: the expression, nothing resolved.
    expect(parameter('who').resolved).toBeUndefined();
    // A credential shows its key; its value is nowhere in the answer.
    expect(parameter('x-api-key')).toMatchObject({ value: 'help-key', credential: 'secret' });
    expect(parameter('x-api-key').resolved).toBeUndefined();
    for (const form of encodings(SECRET)) expect(listed.text).not.toContain(form);

    // All pages with `sent`: each page's line says its own request, and so does a failed page's.
    const paged = await platform.api('POST', '/api/v1/solutions/help/functions/rest-get-tickets/execute', {
      token: platform.adminToken,
      body: { parameters: { filter: 'broken' }, pages: true, sent: true },
    });
    const lines = paged.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      page: 1,
      sent: { method: 'GET', url: `${service.url}/tickets?page=1&filter=broken` },
    });
    expect(lines[1]).toMatchObject({
      status: 'error',
      remoteStatus: 503,
      sent: { method: 'GET', url: `${service.url}/tickets?page=2&filter=broken` },
    });
    for (const form of encodings(SECRET)) expect(paged.text).not.toContain(form);
  });

  it('at 1280 and 390 px: the field is optional and shows its default, the header and the POST confirmation say the real host, all pages keep the sent url and the copy buttons, a 404 reads as the service answer, nothing overflows a phone', async () => {
    const { service, platform, received } = await publish();
    const host = service.url;
    for (const size of [
      { name: 'desktop', width: 1280, height: 800 },
      { name: 'phone', width: 390, height: 844 },
    ]) {
      const phone = size.width === 390;
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.url });
      const page = await context.newPage();
      const fits = async (where: string) => {
        if (phone)
          expect(await overflow(page), `${where}: the page is wider than the phone`).toBeLessThanOrEqual(0);
      };
      await page.goto(`${platform.url}/console/#/s/help`);
      await page.getByLabel('User name').fill('alice');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();

      // Chosen in the navigation: on a phone the preview comes into view (the list is above it).
      await page.getByRole('link', { name: /rest-get-tickets/ }).click();
      const preview = page.getByLabel('Preview of rest-get-tickets');
      await preview.waitFor();
      const top = (await preview.boundingBox())!.y;
      expect(top, 'the preview starts in the upper half of the screen').toBeLessThan(size.height / 2);

      // The header says where it goes: the setting's host, not `{base}`.
      const header = (await preview.locator('.function-header').textContent()) ?? '';
      expect(header).toContain(`GET ${host}/tickets`);
      expect(header).not.toContain('{base}');
      // The base field may be left empty: it says its default, the browser does not refuse.
      const field = page.getByLabel(/^base/);
      expect(await field.getAttribute('required')).toBeNull();
      expect(await field.getAttribute('placeholder')).toBe(host);
      expect(await field.inputValue()).toBe('');
      expect(await preview.locator('label[for="param-base"]').textContent()).toContain(
        'solution.settings.custom.apiBase',
      );
      // A user's value cannot be known before the call: the expression is the hint.
      expect(await page.getByLabel(/^who/).getAttribute('placeholder')).toBe('=@ctx.user.name');
      await fits('function');

      const before = received.length;
      await page.getByRole('button', { name: 'Preview', exact: true }).click();
      await expect.poll(() => page.getByTestId('output').textContent()).toContain('Ticket 1');
      expect(received.slice(before)).toEqual([`GET /tickets?page=1&filter=${FILTER}`]);
      // The status is a label, the copy buttons stand apart: no "·" runs into them.
      const bar = (await page.locator('.result .result-bar').first().textContent()) ?? '';
      expect(bar).toMatch(/^ok\s*\d+ ms\s*Copy JSON\s*Copy url$/);
      expect(await page.locator('.sent').textContent()).toContain(`${host}/tickets?page=1&filter=${FILTER}`);
      await fits('one preview');
      await page.screenshot({ path: join(SHOTS, `${size.name}-1-preview.png`), fullPage: true });

      // All pages: each page says what it sent, and its output and url can be copied.
      await page.getByRole('button', { name: 'All pages' }).click();
      const pages = page.getByLabel('Pages');
      await expect.poll(() => pages.locator('.status').textContent()).toContain('2 pages, all of them');
      expect(await pages.locator('.sent-page').textContent()).toBe(
        `Page 1 sent GET ${host}/tickets?page=1&filter=${FILTER}`,
      );
      await pages.getByRole('button', { name: 'Next page' }).click();
      expect(await pages.locator('.sent-page').textContent()).toContain(`${host}/tickets?page=2&filter=`);
      await pages.getByRole('button', { name: 'Copy url' }).click();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(
        `${host}/tickets?page=2&filter=${FILTER}`,
      );
      await pages.getByRole('button', { name: 'Copy JSON' }).click();
      expect(JSON.parse(await page.evaluate<string>('navigator.clipboard.readText()'))).toEqual([
        { id: 2, title: 'Ticket 2' },
      ]);
      expect(await page.locator('.sent').textContent()).toContain(`${host}/tickets?page=2`);
      await fits('all pages');
      await page.screenshot({ path: join(SHOTS, `${size.name}-2-all-pages.png`), fullPage: true });

      // POST: the confirmation names the url as it will go, the real host and the id filled in.
      await page.getByRole('link', { name: /rest-add-comment/ }).click();
      const comment = page.getByLabel('Preview of rest-add-comment');
      await comment.waitFor();
      expect(await comment.locator('.function-header').textContent()).toContain(
        `POST ${host}/tickets/{id}/comments`,
      );
      await page.getByLabel(/^id/).fill('7');
      const sentBefore = received.length;
      await page.getByRole('button', { name: 'Preview', exact: true }).click();
      const ask = page.getByRole('alertdialog', { name: 'Send POST?' });
      expect(await ask.textContent()).toContain(
        `This preview sends POST to ${host}/tickets/7/comments: it may change data there.`,
      );
      expect(received.length).toBe(sentBefore);
      await fits('confirmation');
      await page.screenshot({ path: join(SHOTS, `${size.name}-3-confirm.png`), fullPage: true });
      await ask.getByRole('button', { name: 'Send POST' }).click();
      await expect.poll(() => page.getByTestId('output').textContent()).toContain('cm-1');
      expect(received.at(-1)).toBe('POST /tickets/7/comments');

      // A 404 from the service: its status is the figure; the platform's 502 is explained.
      await page.getByRole('link', { name: /rest-get-ticket$/ }).click();
      await page.getByLabel('Preview of rest-get-ticket').waitFor();
      await page.getByLabel(/^id/).fill('404');
      await page.getByRole('button', { name: 'Preview', exact: true }).click();
      const failed = page.locator('.error-result');
      await expect.poll(() => failed.textContent()).toContain('The service answered 404');
      expect(await failed.locator('.badge').textContent()).toBe('404');
      expect(await failed.textContent()).toContain('The platform passes it on as REMOTE_ERROR, HTTP 502');
      expect(await failed.textContent()).not.toContain('(service answered');
      await fits('error');
      await page.screenshot({ path: join(SHOTS, `${size.name}-4-error.png`), fullPage: true });

      // An action's form: what a person calls each value, the path beside it; no "local row" talk.
      await page.getByRole('link', { name: 'comment-on-ticket' }).click();
      const action = page.getByLabel('Preview of action comment-on-ticket');
      await action.waitFor();
      expect((await action.boundingBox())!.y, 'the action starts in the upper half').toBeLessThan(
        size.height / 2,
      );
      const labels = await action.locator('label .param-name').allTextContents();
      // The record's key first (issue 38, round 2).
      expect(labels).toEqual(['Item id', 'Comment field']);
      expect(await action.locator('label').nth(1).textContent()).toContain(
        '@ctx.components.comment-field.state.value',
      );
      await action.getByLabel('Item id').fill('3');
      await action.getByLabel('Comment field').fill('Seen');
      await action.getByRole('button', { name: 'Preview' }).click();
      await expect.poll(() => page.getByTestId('row-after').textContent()).toContain('"Seen"');
      const result = (await action.getByLabel('Action result').textContent()) ?? '';
      expect(result).toContain('The item as the screen gives it');
      expect(result).not.toContain('Local row');
      await fits('action');
      await page.screenshot({ path: join(SHOTS, `${size.name}-5-action.png`), fullPage: true });

      const shown = await page.content();
      for (const form of encodings(SECRET)) expect(shown).not.toContain(form);
      await context.close();
    }
  });
});
