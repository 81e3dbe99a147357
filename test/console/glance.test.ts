import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { json, testServer } from '../helpers/http-server.js';
import { type PlatformProcess, startPlatformProcess } from '../helpers/platform.js';

/**
 * The console's screens read at a glance, as a new user saw them at 1280 and 390 px on a real
 * `restfn serve` (issue 38): the log's status labels, legend, filter and phone rows; the
 * credentials' links and buttons; code and diffs that show their long lines; the sidebar's entries;
 * the users' Remove. Screenshots go to the temp folder for a person to look at.
 */
const SHOTS = join(tmpdir(), 'restfn-console-glance');

// The page's globals, for the functions evaluated in it (the tests are compiled without the DOM library).
interface Computed {
  readonly color: string;
  readonly backgroundColor: string;
  readonly borderColor: string;
  readonly borderRadius: string;
  readonly borderBottomWidth: string;
  readonly display: string;
  readonly padding: string;
  readonly fontSize: string;
  readonly overflowX: string;
  getPropertyValue(property: string): string;
}
declare function getComputedStyle(element: unknown): Computed;
declare const document: { querySelector(selector: string): unknown };
const PASSWORD = 'glance-pass-42Xy';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const NAMES = [
  'rest-get-customer-address-history',
  'rest-update-customer-shipping-address',
  'rest-list-customer-invoices-by-year',
];
/** A long line whose end changes between versions (underscores: descenders a background may hide). */
const transform = (last: string) =>
  `outputTransform: '{"customer_identifier_of_the_record": id, "display_name_of_the_customer": name, "${last}": path}'\n`;
/** Forty lines before the change: on a phone, far below the fold unless unchanged lines fold. */
const PREAMBLE = Array.from({ length: 40 }, (_, i) => `# note ${i + 1}: unchanged line of the history`).join(
  '\n',
);

let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // Scrollbars as a person's browser paints them (headless hides them by default).
  browser = await launchChromium({ showScrollbars: true });
});
afterAll(async () => {
  await browser?.close();
});

interface Setup {
  platform: PlatformProcess;
}

/**
 * A platform with a published solution (two versions), a credential used by three functions, users
 * and (`log`) 17 executions, three of them failures. Stopped when the test ends.
 */
async function setUp({ log = false } = {}): Promise<Setup> {
  const service = await testServer((req, res) =>
    req.url?.startsWith('/busy')
      ? json(res, 409, { message: 'busy' })
      : json(res, 200, { id: 'c-1', name: 'Ada', path: req.url }),
  );
  const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
  const admin = platform.adminToken;
  await platform.api('PATCH', '/api/v1/users/admin', { token: admin, body: { password: PASSWORD } });
  for (const [name, role] of [
    ['alice', 'author'],
    ['carol', 'admin'],
  ])
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name, role, solutions: ['crm'], password: PASSWORD },
    });
  const files = (last: string) => ({
    ...Object.fromEntries(
      NAMES.map((name) => [
        `functions/${name}.platform`,
        `${name === NAMES[0] ? `${PREAMBLE}\n` : ''}provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/customers\nparameters:\n  x-api-key: { location: header, type: secret, value: crm-api-key }\n${transform(last)}`,
      ]),
    ),
    'functions/rest-get-busy.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/busy\nerror:\n  - when: =@ctx.response.status = 409\n    title: The service is busy\n    description: Try again in a minute.\n`,
    'datasources/customers.platform':
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: customers\n      function: rest-get-busy\n',
    'actions/rename-customer.platform':
      'type: action.execute-entity\noptions:\n  provider: DATA_PROVIDER_REST\n  entity: customers\n  method: update\n  function: rest-get-busy\n  data:\n    id: =@ctx.current.item.id\n',
  });
  for (const last of ['path_requested_from_the_service', 'path_the_service_answered_for'])
    expect(
      (await platform.api('PUT', '/api/v1/solutions/crm', { token: admin, body: { files: files(last) } }))
        .status,
    ).toBe(201);
  await platform.api('PUT', '/api/v1/solutions/crm/credentials/crm-api-key', {
    token: admin,
    body: { kind: 'secret', value: 'not-a-real-secret-1', origins: [service.url] },
  });
  for (let i = 0; i < (log ? 14 : 0); i++)
    await platform.api('POST', `/api/v1/solutions/crm/functions/${NAMES[i % 3]}/execute`, {
      token: admin,
      body: {},
    });
  for (let i = 0; i < (log ? 3 : 0); i++)
    await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-busy/execute', {
      token: admin,
      body: {},
    });
  return { platform };
}

async function signedIn(platform: PlatformProcess, viewport: typeof DESKTOP, name = 'admin') {
  // A phone as one: its scrollbars are overlays that take no room (a desktop's take ~15 px).
  const context = await browser.newContext({ viewport, isMobile: viewport.width < 600 });
  const page = await context.newPage();
  await page.goto(`${platform.url}/console/`);
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return { context, page };
}

async function open(page: Page, platform: PlatformProcess, hash: string) {
  await page.goto(`${platform.url}/console/${hash}`);
  await page.waitForLoadState('networkidle');
  await page
    .locator('main')
    .getByText('Loading…')
    .waitFor({ state: 'detached' })
    .catch(() => undefined);
}

/** The page's width past the phone's 390 px (0: nothing overflows sideways). */
const overflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - 390');

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** A computed style property of the first element `selector` finds. */
const style = (page: Page, selector: string, property: string) =>
  page.evaluate(
    ([s, p]) => getComputedStyle(document.querySelector(s!)!).getPropertyValue(p!),
    [selector, property],
  );

const ACCENT = 'rgb(36, 87, 197)';

describe('the console at a glance (issue 38)', () => {
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });

  it('executions: status labels (red with the code, green ok), execute and call explained, a kind filter kept in the address', async () => {
    const { platform } = await setUp({ log: true });
    const { context, page } = await signedIn(platform, DESKTOP);
    contexts.push(context);
    await open(page, platform, '#/s/crm/executions');
    const log = page.getByRole('region', { name: 'Executions' });
    await expect.poll(() => log.locator('tbody tr').count()).toBeGreaterThanOrEqual(17);
    await shot(page, 'desktop-executions');
    // A failure is a red label, not an accent-coloured button; ok is green.
    const failure = log.getByRole('button', { name: 'REMOTE_ERROR' }).first();
    const failed = await failure.evaluate((b) => {
      const s = getComputedStyle(b);
      return { color: s.color, background: s.backgroundColor, radius: Number.parseFloat(s.borderRadius) };
    });
    expect(failed.color).not.toBe(ACCENT);
    expect(failed.color).toBe('rgb(180, 35, 24)');
    expect(failed.background).toBe('rgb(255, 235, 233)');
    expect(failed.radius).toBeGreaterThanOrEqual(10);
    const ok = log.locator('tbody td', { hasText: /^ok$/ }).first().locator('span');
    expect(await ok.evaluate((s) => getComputedStyle(s).color)).toBe('rgb(26, 127, 55)');
    await failure.click();
    await expect
      .poll(() => log.getByRole('region', { name: 'Error details' }).textContent())
      .toContain('The service is busy');
    // What "execute" and "call" mean: a legend, the column's header, each entry's tooltip.
    expect(await log.getByRole('columnheader', { name: 'What ran or changed' }).count()).toBe(1);
    const legend = log.getByRole('definition');
    expect(await legend.allTextContents()).toEqual([
      expect.stringContaining('ran the whole function'),
      expect.stringContaining('on its device and the platform only sent its HTTP request'),
    ]);
    expect(await log.getByText('execute', { exact: true }).last().getAttribute('title')).toContain(
      'ran the whole function',
    );
    // Changes only: publishes and the credential; the address says so.
    await log.getByLabel('Show').selectOption('changes');
    await expect
      .poll(() => log.locator('tbody .event').allTextContents())
      .toEqual(['credential.put', 'publish', 'publish']);
    expect(new URL(page.url()).hash).toBe('#/s/crm/executions?kind=changes');
    // The address opens the same list; executions only: no publish among them.
    const again = await context.newPage();
    await open(again, platform, '#/s/crm/executions?kind=executions');
    const list = again.getByRole('region', { name: 'Executions' });
    expect(await list.getByLabel('Show').inputValue()).toBe('executions');
    await expect.poll(() => list.locator('tbody .event').count()).toBe(17);
    expect(new Set(await list.locator('tbody .event').allTextContents())).toEqual(new Set(['execute']));
    // The API takes the kind too, and refuses one it does not know.
    const changes = await platform.api('GET', '/api/v1/solutions/crm/executions?kind=changes', {
      token: platform.adminToken,
    });
    expect(changes.body.entries.map((e: { action: string }) => e.action)).toEqual([
      'credential.put',
      'publish',
      'publish',
    ]);
    const unknown = await platform.api('GET', '/api/v1/solutions/crm/executions?kind=publishes', {
      token: platform.adminToken,
    });
    expect(unknown.body.code).toBe('REQUEST_INVALID');
  });

  it('executions on a phone: each entry one or two short lines (<= 70 px), nothing wider than the screen', async () => {
    const { platform } = await setUp({ log: true });
    const { context, page } = await signedIn(platform, PHONE);
    contexts.push(context);
    await open(page, platform, '#/s/crm/executions');
    const rows = page.getByRole('region', { name: 'Executions' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(20);
    const heights = await rows.evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().height));
    expect(Math.max(...heights)).toBeLessThanOrEqual(70);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await shot(page, 'phone-executions');
    await page.getByRole('button', { name: 'REMOTE_ERROR' }).first().click();
    await page.getByRole('region', { name: 'Error details' }).waitFor();
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await shot(page, 'phone-executions-details');
  });

  it("credentials: 'Used by' names are whole links to their functions; Update and Remove side by side", async () => {
    const { platform } = await setUp();
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const { context, page } = await signedIn(platform, viewport);
      contexts.push(context);
      await open(page, platform, '#/s/crm/credentials');
      const row = page.getByRole('row', { name: /crm-api-key/ });
      const links = row.getByRole('link');
      expect(await links.allTextContents()).toEqual([...NAMES].sort());
      expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(
        [...NAMES].sort().map((n) => `#/s/crm/f/${n}`),
      );
      // One line each: a name never breaks at its hyphens.
      const lineHeights = await links.evaluateAll((as) =>
        as.map((a) => a.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(a).fontSize)),
      );
      for (const h of lineHeights) expect(h).toBeLessThan(1.8);
      const update = await row.getByRole('button', { name: 'Update crm-api-key' }).boundingBox();
      const remove = await row.getByRole('button', { name: 'Remove crm-api-key' }).boundingBox();
      expect(Math.abs(update!.y - remove!.y)).toBeLessThan(2);
      expect(remove!.x).toBeGreaterThan(update!.x);
      expect(await style(page, 'button[aria-label="Remove crm-api-key"]', 'color')).toBe('rgb(180, 35, 24)');
      // The table fits its box: no sideways scrolling to reach Remove.
      const box = page.getByRole('region', { name: 'Credentials' });
      expect(await box.evaluate((s) => s.scrollWidth - s.clientWidth)).toBeLessThanOrEqual(0);
      if (size === 'phone') expect(await overflow(page)).toBeLessThanOrEqual(0);
      await shot(page, `${size}-credentials`);
      await links.first().click();
      await page.getByRole('button', { name: 'Show definition' }).waitFor();
      expect(new URL(page.url()).hash).toBe(`#/s/crm/f/${[...NAMES].sort()[0]}`);
    }
  });

  it('the definition: a long line scrolls sideways with a scrollbar one sees, at both sizes', async () => {
    const { platform } = await setUp();
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const { context, page } = await signedIn(platform, viewport);
      contexts.push(context);
      await open(page, platform, `#/s/crm/f/${NAMES[1]}`);
      await page.getByRole('button', { name: 'Show definition' }).click();
      const pre = page.getByLabel('Function definition').locator('pre');
      const box = await pre.evaluate((p) => ({
        cut: p.scrollWidth > p.clientWidth,
        overflowX: getComputedStyle(p).overflowX,
        // A scrollbar one sees takes room under the text; an overlay one takes none.
        bar:
          p.offsetHeight -
          p.clientHeight -
          2 * Number.parseFloat(getComputedStyle(p).borderBottomWidth || '0'),
      }));
      expect(box.cut).toBe(true);
      expect(['auto', 'scroll']).toContain(box.overflowX);
      expect(box.bar).toBeGreaterThanOrEqual(8);
      if (size === 'phone') expect(await overflow(page)).toBeLessThanOrEqual(0);
      await shot(page, `${size}-definition`);
      await pre.screenshot({ path: join(SHOTS, `${size}-definition-code.png`) });
    }
  });

  it('versions: a diff line shows its descenders; on a phone the change is near the top and not cut', async () => {
    const { platform } = await setUp();
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const { context, page } = await signedIn(platform, viewport);
      contexts.push(context);
      await open(page, platform, '#/s/crm/versions');
      const diff = page.locator('details', { hasText: NAMES[0]! }).locator('pre.diff');
      await diff.waitFor();
      const removed = diff.locator('.diff-del');
      expect(await removed.textContent()).toContain('path_requested_from_the_service');
      const lines = await diff.evaluate((pre) => {
        const rects = [...pre.children].map((l) => l.getBoundingClientRect());
        const font = Number.parseFloat(getComputedStyle(pre).fontSize);
        const del = pre.querySelector('.diff-del')!.getBoundingClientRect();
        const top = pre.getBoundingClientRect().top;
        return {
          font,
          heights: rects.map((r) => r.height),
          overlaps: rects.slice(1).filter((r, i) => r.top < rects[i]!.bottom - 0.5).length,
          changeBelowTop: del.top - top,
          cut: pre.scrollWidth > pre.clientWidth,
        };
      });
      // Each line's box is its own and leaves room below the baseline (underscores show).
      expect(lines.overlaps).toBe(0);
      expect(Math.min(...lines.heights)).toBeGreaterThanOrEqual(1.4 * lines.font);
      // The change is in the diff's first half screen (unchanged lines folded), wrapped, not cut.
      expect(lines.changeBelowTop).toBeLessThan(viewport.height / 2);
      expect(await diff.getByText(/unchanged lines/).count()).toBeGreaterThan(0);
      if (size === 'phone') {
        expect(lines.cut).toBe(false);
        expect(await overflow(page)).toBeLessThanOrEqual(0);
      }
      await shot(page, `${size}-versions`);
    }
  });

  it('the sidebar: datasource and action entries look and answer like function entries', async () => {
    const { platform } = await setUp();
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const { context, page } = await signedIn(platform, viewport);
      contexts.push(context);
      await open(page, platform, '#/s/crm');
      const nav = page.getByRole('navigation', { name: 'REST functions' });
      const fn = nav.getByRole('link', { name: /rest-get-busy/ });
      const ds = nav.getByRole('link', { name: /customers/ });
      const action = nav.getByRole('link', { name: /rename-customer/ });
      for (const entry of [ds, action]) {
        // A badge before the name, as a function's method.
        expect(await entry.locator('.method').count()).toBe(1);
        const [mine, theirs] = await Promise.all(
          [entry, fn].map((l) =>
            l.evaluate((a) => {
              const s = getComputedStyle(a);
              return `${s.display} ${s.padding} ${s.borderRadius}`;
            }),
          ),
        );
        expect(mine).toBe(theirs);
        // The pointer over it: a background, as over any entry.
        await entry.hover();
        expect(await entry.evaluate((a) => getComputedStyle(a).backgroundColor)).toBe('rgb(238, 242, 251)');
      }
      expect(await action.locator('.method').textContent()).toBe('UPDATE');
      if (size === 'phone') expect(await overflow(page)).toBeLessThanOrEqual(0);
      await shot(page, `${size}-sidebar`);
    }
  });

  it("users: Remove in the danger colour, not on the admin's own row; the API refuses removing oneself", async () => {
    const { platform } = await setUp();
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const { context, page } = await signedIn(platform, viewport);
      contexts.push(context);
      await open(page, platform, '#/users');
      await page.getByRole('row', { name: /carol/ }).waitFor();
      expect(await page.getByRole('button', { name: 'Remove admin' }).count()).toBe(0);
      const remove = page.getByRole('button', { name: 'Remove carol' });
      expect(await remove.evaluate((b) => getComputedStyle(b).color)).toBe('rgb(180, 35, 24)');
      expect(await remove.evaluate((b) => getComputedStyle(b).borderColor)).toBe('rgb(180, 35, 24)');
      // Every button inside its row (a phone's card), none cut at its edge.
      const row = await page.getByRole('row', { name: /carol/ }).boundingBox();
      const button = await remove.boundingBox();
      expect(button!.x + button!.width).toBeLessThanOrEqual(row!.x + row!.width);
      if (size === 'phone') expect(await overflow(page)).toBeLessThanOrEqual(0);
      await shot(page, `${size}-users`);
    }
    // Another admin exists (carol): the refusal is about oneself, not the last admin.
    const self = await platform.api('DELETE', '/api/v1/users/admin', { token: platform.adminToken });
    expect(self.status).toBe(409);
    expect(self.body.code).toBe('SELF_REMOVAL');
    expect(self.body.message).toContain('another admin');
    expect(
      (await platform.api('GET', '/api/v1/users', { token: platform.adminToken })).body.users,
    ).toHaveLength(3);
  });
});
