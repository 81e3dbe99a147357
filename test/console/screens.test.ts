import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

/**
 * Every screen of the console, for every role, at a desktop and a phone width: nothing overflows
 * the page sideways (measured from the page's own widths), and each screen is screenshotted for a
 * person to look at (in the temp folder, never committed).
 */
const SHOTS = join(tmpdir(), 'restfn-console-screens');
const PASSWORD = 'screens-pass-42Xy';
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Screens every member of the solution opens: history, a datasource, an action. */
const MEMBER_SCREENS = [
  ['versions', '#/s/crm/versions'],
  ['datasource', '#/s/crm/d/customers'],
  ['action', '#/s/crm/a/rename-customer-with-a-long-action-name'],
] as const;

let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** How far the page reaches past the viewport sideways (0: it fits). */
const overflow = (page: Page) =>
  page.evaluate<number>(
    'Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth',
  );

async function signIn(page: Page, url: string, name: string) {
  await page.goto(`${url}/console/`);
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

describe('the console on every screen', () => {
  it('no screen overflows sideways, for any role, at 1280 and 390 px; code keeps its indentation; the header is one line', async () => {
    const service = await testServer((req, res) =>
      json(res, 200, { id: 'c-1', name: 'Ada Lovelace', path: req.url }),
    );
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('PATCH', '/api/v1/users/admin', { token: admin, body: { password: PASSWORD } });
    for (const [name, role] of [
      ['alice', 'author'],
      ['bob', 'user'],
    ])
      await platform.api('POST', '/api/v1/users', {
        token: admin,
        body: { name, role, solutions: ['crm'], password: PASSWORD },
      });
    const long = `${service.url}/customers/{customerId}/addresses/{addressId}/history?include=everything-there-is`;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-customer-address-history.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${long}\nparameters:\n  customerId: { location: path, type: string, required: true, value: c-1 }\n  addressId: { location: path, type: string, required: true, value: a-1 }\n  x-api-key: { location: header, type: secret, value: crm-api-key-with-a-long-name }\noutputTransform: '$'\n`,
          'functions/rest-get-customers.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/customers\n`,
          'datasources/customers.platform':
            'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: customers\n      function: rest-get-customers\n',
          'actions/rename-customer-with-a-long-action-name.platform':
            'type: action.execute-entity\noptions:\n  provider: DATA_PROVIDER_REST\n  entity: customers\n  method: update\n  function: rest-get-customers\n  data:\n    id: =@ctx.current.item.id\n    name: =@ctx.components.customer-name-field.state.value\n',
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/crm-api-key-with-a-long-name', {
      token: admin,
      body: { kind: 'secret', value: 'not-a-real-secret-1', origins: [service.url] },
    });
    await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-customers/execute', {
      token: admin,
      body: {},
    });

    const screens: Record<string, ReadonlyArray<readonly [string, string]>> = {
      admin: [
        ['solutions', '#/'],
        ['solution', '#/s/crm'],
        ['function', '#/s/crm/f/rest-get-customer-address-history'],
        ['credentials', '#/s/crm/credentials'],
        ['executions', '#/s/crm/executions'],
        ['users', '#/users'],
        ...MEMBER_SCREENS,
      ],
      alice: [
        ['solutions', '#/'],
        ['function', '#/s/crm/f/rest-get-customer-address-history'],
        ['credentials', '#/s/crm/credentials'],
        ['executions', '#/s/crm/executions'],
        ...MEMBER_SCREENS,
      ],
      bob: [
        ['solutions', '#/'],
        ['function', '#/s/crm/f/rest-get-customer-address-history'],
        ['executions-refused', '#/s/crm/executions'],
        ...MEMBER_SCREENS,
      ],
    };
    const problems: string[] = [];
    // What every member of the solution may open.
    for (const size of SIZES) {
      for (const [user, list] of Object.entries(screens)) {
        const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
        const page = await context.newPage();
        await page.goto(`${platform.url}/console/`);
        await page.getByRole('button', { name: 'Sign in' }).waitFor();
        const signInOver = await overflow(page);
        if (signInOver > 0)
          problems.push(`${size.name} sign-in: the page is ${signInOver}px wider than the screen`);
        await page.screenshot({ path: join(SHOTS, `${size.name}-sign-in.png`) });
        await signIn(page, platform.url, user);
        const header = await page.locator('header.top').boundingBox();
        if (header!.height > 60)
          problems.push(`${user} ${size.name}: the header is ${header!.height}px high (two lines?)`);
        for (const [screen, hash] of list) {
          await page.goto(`${platform.url}/console/${hash}`);
          await page.waitForLoadState('networkidle');
          await page
            .locator('main')
            .getByText('Loading…')
            .waitFor({ state: 'detached' })
            .catch(() => undefined);
          const over = await overflow(page);
          if (over > 0)
            problems.push(`${user} ${size.name} ${screen}: the page is ${over}px wider than the screen`);
          await page.screenshot({ path: join(SHOTS, `${size.name}-${user}-${screen}.png`), fullPage: true });
          if (screen === 'function') {
            await page.getByRole('button', { name: 'Preview' }).click();
            const output = page.getByTestId('output');
            await output.waitFor();
            const box = await output.boundingBox();
            if (!box || box.y > size.height || box.y + 20 < 0)
              problems.push(
                `${user} ${size.name}: after Preview the result is not in view (top at ${box?.y})`,
              );
            const after = await overflow(page);
            if (after > 0) problems.push(`${user} ${size.name} preview result: ${after}px too wide`);
            await page.screenshot({ path: join(SHOTS, `${size.name}-${user}-${screen}-result.png`) });
            await page.getByRole('button', { name: /definition/i }).click();
            await page.getByLabel('Function definition').waitFor();
            const style = await page.evaluate<string>(
              `getComputedStyle(document.querySelector('[aria-label="Function definition"] pre')).whiteSpace`,
            );
            if (style !== 'pre')
              problems.push(
                `${user} ${size.name}: the definition wraps (white-space ${style}), losing YAML's indentation`,
              );
            const wide = await overflow(page);
            if (wide > 0) problems.push(`${user} ${size.name} definition: ${wide}px too wide`);
            await page.screenshot({
              path: join(SHOTS, `${size.name}-${user}-${screen}-definition.png`),
              fullPage: true,
            });
          }
          if (screen === 'datasource') {
            await page.getByRole('button', { name: 'Preview' }).click();
            await page.getByTestId('table-customers').waitFor();
            const after = await overflow(page);
            if (after > 0) problems.push(`${user} ${size.name} datasource preview: ${after}px too wide`);
            await page.screenshot({
              path: join(SHOTS, `${size.name}-${user}-${screen}-result.png`),
              fullPage: true,
            });
          }
        }
        await context.close();
      }
    }
    expect(problems).toEqual([]);
  }, 240_000);
});
