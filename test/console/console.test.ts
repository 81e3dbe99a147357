import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { authServer, CLIENT_ID, CLIENT_SECRET } from '../helpers/oauth-server.js';
import { bytesOf, startPlatformProcess } from '../helpers/platform.js';

const SECRET = 'ck-live-5Wq9rT2mX8vL3pZ7nB4c';
const PASSWORD = 'console-pass-42Xy';
/** Screenshots of each screen, for a person to look at (not committed). */
const SHOTS = join(tmpdir(), 'restfn-console-shots');

let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('the console in a real browser', () => {
  it('sign in, find a function, preview it with parameters, see an error with its alert, show the schema, sign out', async () => {
    const service = await testServer((req, res) => {
      if (req.headers['x-api-key'] !== SECRET) return json(res, 401, { error: 'no key' });
      if (req.url.startsWith('/customers/')) {
        return json(res, 200, {
          id: req.url.split('/')[2],
          name: 'Ada Lovelace',
          key: req.headers['x-api-key'],
        });
      }
      json(res, 403, { error: 'not yours' });
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'alice', role: 'author', solutions: ['crm'], password: PASSWORD },
    });
    const key = '  x-api-key: { location: header, type: secret, value: api-key }\n';
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-customer.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/customers/{id}\nparameters:\n  id: { location: path, type: string, required: true, value: c-1 }\n${key}`,
          'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/orders\nparameters:\n${key}error:\n  - when: =@ctx.response.status = 403\n    title: Orders are private\n    description: Ask for access to the orders.\n    alert:\n      title: No access to orders\n`,
        },
      },
    });
    expect(published.status).toBe(201);
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token: admin,
      body: { kind: 'secret', value: SECRET },
    });

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const bodies: string[] = [];
    page.on('response', (r) => {
      void r.text().then(
        (t) => bodies.push(t),
        () => undefined,
      );
    });
    await page.goto(`${platform.url}/console/`);
    await page.getByLabel('User name').fill('alice');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('the user name or the password is wrong');
    await page.screenshot({ path: join(SHOTS, '1-sign-in-error.png') });

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'crm' }).click();
    await page.getByLabel('Search functions').fill('customer');
    await expect.poll(() => page.getByRole('navigation').getByRole('listitem').count()).toBe(1);
    await page.getByRole('link', { name: /rest-get-customer/ }).click();
    // The credential parameter shows its key, never a value.
    await expect.poll(() => page.locator('.credential-param').textContent()).toContain('api-key');
    await page.getByLabel(/^id/).fill('c-42');
    await page.getByRole('button', { name: 'Preview' }).click();
    const output = page.getByTestId('output');
    await expect.poll(() => output.textContent()).toContain('Ada Lovelace');
    expect(await output.textContent()).toContain('"c-42"');
    expect(await output.textContent()).toContain('"***"');
    await page.screenshot({ path: join(SHOTS, '2-preview-ok.png') });
    // On request: the raw request as sent (credential masked) and the response before any transform.
    const raw = page.getByLabel('Raw request and response');
    await raw.getByText('Raw request').click();
    await raw.getByText(/Raw response · 200/).click();
    const exchange = (await raw.textContent()) ?? '';
    expect(exchange).toContain(`GET ${service.url}/customers/c-42`);
    expect(exchange).toContain('x-api-key: ***');
    expect(exchange).toContain('"name":"Ada Lovelace"');
    expect(exchange).toContain('"key":"***"');
    await page.screenshot({ path: join(SHOTS, '2b-preview-raw.png'), fullPage: true });

    await page.getByRole('button', { name: 'Show definition' }).click();
    await expect.poll(() => page.getByLabel('Function definition').textContent()).toContain('method: GET');
    // Highlighted: keys apart from values.
    expect(await page.locator('.yaml .y-key').allTextContents()).toContain('method:');
    await page.screenshot({ path: join(SHOTS, '2c-show-schema.png'), fullPage: true });
    const schema = JSON.parse((await page.getByLabel('Output schema').textContent()) ?? '{}');
    expect(schema).toMatchObject({
      type: 'object',
      properties: { id: { type: 'string' }, name: { type: 'string' }, key: { type: 'string' } },
      required: ['id', 'name', 'key'],
    });

    // Keyboard only: to the orders function and its Preview, with Tab and Enter.
    await page.getByLabel('Search functions').fill('');
    await page.getByRole('link', { name: /rest-get-orders/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { name: 'rest-get-orders' }).count()).toBe(1);
    const preview = page.getByRole('button', { name: 'Preview' });
    for (let i = 0; i < 20 && !(await preview.evaluate((el) => el === el.ownerDocument.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    const failed = page.locator('.error-result');
    await expect.poll(() => failed.textContent()).toContain('Orders are private');
    const text = await failed.textContent();
    expect(text).toContain('Ask for access to the orders.');
    expect(text).toContain('No access to orders');
    expect(text).toContain('service answered 403');
    await page
      .getByLabel('Raw request and response')
      .getByText(/Raw response · 403/)
      .click();
    expect(await page.getByLabel('Raw request and response').textContent()).toContain('"error":"not yours"');
    await page.screenshot({ path: join(SHOTS, '3-preview-error.png') });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SHOTS, '4-narrow.png'), fullPage: true });

    const dom = await page.content();
    const storage = await page.evaluate<string>('JSON.stringify({ ...localStorage, ...sessionStorage })');
    for (const form of encodings(SECRET)) {
      expect(dom).not.toContain(form);
      expect(storage).not.toContain(form);
      for (const body of bodies) expect(body).not.toContain(form);
    }

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    await context.close();
  });

  it('credentials: add, update (secret fields entered again, never shown), remove with a warning naming the functions', async () => {
    const platform = await startPlatformProcess();
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'alice', role: 'author', solutions: ['crm'], password: PASSWORD },
    });
    await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-customer.platform':
            'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://api.example.com/customers\nparameters:\n  x-api-key: { location: header, type: secret, value: api-key }\n',
        },
      },
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const bodies: string[] = [];
    page.on('response', (r) => {
      void r.text().then(
        (t) => bodies.push(t),
        () => undefined,
      );
    });
    await page.goto(`${platform.url}/console/#/s/crm/credentials`);
    await page.getByLabel('User name').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Add credential' }).click();
    const form = page.getByRole('form', { name: 'Add credential' });
    await form.getByLabel('Key', { exact: true }).fill('api-key');
    await form.getByLabel('Value').fill(SECRET);
    await form.getByRole('button', { name: 'Add' }).click();
    const row = page.getByRole('row', { name: /api-key/ });
    await expect.poll(() => row.textContent()).toContain('rest-get-customer');
    expect(await row.textContent()).toContain('secret');
    // Bound to where the functions that use it send it (none was given).
    expect(await row.textContent()).toContain('to https://api.example.com');
    await page.screenshot({ path: join(SHOTS, '5-credentials.png') });

    // Update: the secret field starts empty.
    await page.getByRole('button', { name: 'Update api-key' }).click();
    const update = page.getByRole('form', { name: 'Update api-key' });
    // The form says which credential it changes.
    expect(await update.getByRole('heading').textContent()).toBe('Update api-key');
    expect(await update.getByLabel('Value').inputValue()).toBe('');
    await update.getByLabel('Value').fill(`${SECRET}-2`);
    expect(await update.getByLabel(/^Origins/).inputValue()).toBe('https://api.example.com');
    // An author may not add an origin: the form says so, and stays open.
    await update.getByLabel(/^Origins/).fill('https://api.example.com https://eu.api.example.com/');
    await update.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => update.getByRole('alert').textContent())
      .toContain('only an admin may add an origin to a credential; https://eu.api.example.com');
    // The admin may; then the author narrows it back.
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token: admin,
      body: {
        kind: 'secret',
        value: SECRET,
        origins: ['https://api.example.com', 'https://eu.api.example.com'],
      },
    });
    await update.getByLabel(/^Origins/).fill('https://eu.api.example.com');
    await update.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('form').count()).toBe(0);
    await expect.poll(() => row.textContent()).toContain('to https://eu.api.example.com');
    expect(await row.textContent()).not.toContain('to https://api.example.com');

    // Remove warns which functions stop working.
    await page.getByRole('button', { name: 'Remove api-key' }).click();
    const confirm = page.getByRole('alertdialog');
    expect(await confirm.textContent()).toContain('These functions will stop working: rest-get-customer.');
    await page.screenshot({ path: join(SHOTS, '6-remove-warning.png') });
    await confirm.getByRole('button', { name: 'Remove for good' }).click();
    await expect.poll(() => page.getByText('No credentials yet.').count()).toBe(1);

    const dom = await page.content();
    const storage = await page.evaluate<string>('JSON.stringify({ ...localStorage, ...sessionStorage })');
    for (const secret of [SECRET, `${SECRET}-2`]) {
      for (const form of encodings(secret)) {
        expect(dom).not.toContain(form);
        expect(storage).not.toContain(form);
        for (const body of bodies) expect(body).not.toContain(form);
      }
    }
    await context.close();
  });

  it('executions (admins): filter by outcome and correlation id, open the details of a failure', async () => {
    const service = await testServer((req, res) =>
      req.url === '/ok' ? json(res, 200, { fine: true }) : json(res, 409, { error: 'busy' }),
    );
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'root', role: 'admin', password: PASSWORD },
    });
    await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-ok.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/ok\n`,
          'functions/rest-get-busy.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/busy\nerror:\n  - when: =@ctx.response.status = 409\n    title: The service is busy\n    description: Try again in a minute.\n`,
        },
      },
    });
    const ok = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-ok/execute', {
      token: admin,
      body: {},
    });
    const busy = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-busy/execute', {
      token: admin,
      body: {},
    });
    expect(busy.body.code).toBe('REMOTE_ERROR');
    // The API filters too: by correlation id, one entry.
    const one = await platform.api(
      'GET',
      `/api/v1/solutions/crm/executions?correlationId=${ok.body.correlationId}`,
      { token: admin },
    );
    expect(one.body.entries).toEqual([expect.objectContaining({ target: 'rest-get-ok', outcome: 'ok' })]);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${platform.url}/console/#/s/crm/executions`);
    await page.getByLabel('User name').fill('root');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const table = page.getByRole('region', { name: 'Executions' });
    await expect.poll(() => table.getByRole('row').count()).toBeGreaterThan(2);
    await table.getByLabel('Outcome').fill('REMOTE_ERROR');
    await table.getByLabel('Outcome').press('Enter');
    await table.getByLabel('Outcome').blur();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await table.getByRole('button', { name: 'REMOTE_ERROR' }).click();
    const details = table.getByRole('region', { name: 'Error details' });
    await expect.poll(() => details.textContent()).toContain('The service is busy');
    expect(await details.textContent()).toContain(busy.body.correlationId);
    await page.screenshot({ path: join(SHOTS, '7-executions.png') });
    await context.close();
  });

  it('users (admins): add, change the role, reset the password, revoke a token', async () => {
    const platform = await startPlatformProcess();
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'root', role: 'admin', password: PASSWORD },
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${platform.url}/console/#/users`);
    await page.getByLabel('User name').fill('root');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const add = page.getByRole('form', { name: 'Add user' });
    await add.getByLabel('Name').fill('dana');
    await add.getByLabel('Solutions (comma-separated)').fill('crm, hr');
    await add.getByLabel(/^Password/).fill('first-password-1');
    await add.getByRole('button', { name: 'Add user' }).click();
    await expect.poll(() => page.getByRole('row', { name: /dana/ }).count()).toBe(1);
    await page.getByLabel('Role of dana').selectOption('author');
    // Nothing changes until the change is confirmed; then the console says what happened.
    const role = async () =>
      (await platform.api('GET', '/api/v1/users', { token: admin })).body.users.find(
        (u: { name: string }) => u.name === 'dana',
      )?.role;
    expect(await role()).toBe('user');
    const ask = page.getByRole('alertdialog', { name: 'Change the role of dana?' });
    expect(await ask.textContent()).toContain("Change dana's role from user to author?");
    await ask.getByRole('button', { name: 'Change role' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('dana is now an author.');
    await expect
      .poll(
        async () =>
          (await platform.api('GET', '/api/v1/users', { token: admin })).body.users.find(
            (u: { name: string }) => u.name === 'dana',
          )?.role,
      )
      .toBe('author');

    page.once('dialog', (dialog) => void dialog.accept('second-password-2'));
    await page.getByRole('row', { name: /dana/ }).getByRole('button', { name: 'Reset password' }).click();
    await expect
      .poll(
        async () =>
          (
            await platform.api('POST', '/api/v1/session', {
              body: { name: 'dana', password: 'second-password-2' },
            })
          ).status,
      )
      .toBe(200);

    const made = await platform.api('POST', '/api/v1/users/dana/tokens', {
      token: admin,
      body: { name: 'laptop' },
    });
    await page.getByRole('button', { name: 'Tokens of dana' }).click();
    await page.getByRole('button', { name: 'Revoke laptop' }).click();
    await expect
      .poll(async () => (await platform.api('GET', '/api/v1/me', { token: made.body.token })).status)
      .toBe(401);
    await page.screenshot({ path: join(SHOTS, '8-users.png') });

    // An admin removes a user, after saying so.
    await page.getByRole('button', { name: 'Remove dana' }).click();
    const removing = page.getByRole('alertdialog', { name: 'Remove dana?' });
    expect(
      (
        await platform.api('POST', '/api/v1/session', {
          body: { name: 'dana', password: 'second-password-2' },
        })
      ).status,
    ).toBe(200);
    await removing.getByRole('button', { name: 'Remove for good' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Removed dana and their tokens.');
    expect(await page.getByRole('row', { name: /dana/ }).count()).toBe(0);
    expect(
      (
        await platform.api('POST', '/api/v1/session', {
          body: { name: 'dana', password: 'second-password-2' },
        })
      ).status,
    ).toBe(401);
    await context.close();
  });

  it("an author sees their solution's executions and not another's; a user is told what their role may not open", async () => {
    const service = await testServer((req, res) => json(res, 200, { at: req.url }));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    for (const [name, role, solutions] of [
      ['alice', 'author', ['crm']],
      ['bob', 'user', ['crm']],
    ] as const)
      await platform.api('POST', '/api/v1/users', {
        token: admin,
        body: { name, role, solutions, password: PASSWORD },
      });
    for (const solution of ['crm', 'hr']) {
      await platform.api('PUT', `/api/v1/solutions/${solution}`, {
        token: admin,
        body: {
          files: {
            [`functions/rest-get-${solution}.platform`]: `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/${solution}\n`,
          },
        },
      });
      await platform.api('POST', `/api/v1/solutions/${solution}/functions/rest-get-${solution}/execute`, {
        token: admin,
        body: {},
      });
    }
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${platform.url}/console/#/s/crm/executions`);
    await page.getByLabel('User name').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const table = page.getByRole('table');
    await expect.poll(() => table.textContent()).toContain('rest-get-crm');
    expect(await table.textContent()).not.toContain('rest-get-hr');
    await page.screenshot({ path: join(SHOTS, '10-author-executions-390.png'), fullPage: true });
    // Another solution's log is not hers: the platform refuses, and the console says why.
    await page.goto(`${platform.url}/console/#/s/hr/executions`);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain("does not belong to solution 'hr'");
    await page.getByRole('button', { name: 'Sign out' }).click();

    await page.goto(`${platform.url}/console/#/s/crm/executions`);
    await page.getByLabel('User name').fill('bob');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.getByRole('note').textContent())
      .toBe(
        "Executions are for the solution's authors and admins: your role is user. Pick a function to preview it.",
      );
    expect(await page.getByRole('link', { name: 'Executions' }).count()).toBe(0);
    await page.goto(`${platform.url}/console/#/users`);
    await expect
      .poll(() => page.getByRole('note').textContent())
      .toContain('Users are managed by admins: your role is user.');
    await context.close();
  });

  it('preview like a REST client: all pages and page by page, JSON for list parameters, the url as sent, copy as curl', async () => {
    const received: string[] = [];
    const service = await testServer((req, res) => {
      received.push(req.url);
      const url = new URL(req.url, 'http://x');
      const page = Number(url.searchParams.get('page') ?? 1);
      if (req.headers['x-api-key'] !== SECRET) return json(res, 401, { error: 'no key' });
      json(res, 200, {
        items: [{ id: `p${page}`, tags: url.searchParams.get('tags') }],
        next: page < 3 ? page + 1 : null,
      });
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'alice', role: 'author', solutions: ['crm'], password: PASSWORD },
    });
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'bob', role: 'user', solutions: ['crm'], password: PASSWORD },
    });
    const key = '  x-api-key: { location: header, type: secret, value: api-key }\n';
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/items\nparameters:\n  page: { location: query, type: int, value: 1 }\n  tags: { location: query, type: array }\n${key}outputTransform: items\ncontinuation:\n  when: =@ctx.response.body.next != null\n  parameters:\n    page: { location: query, type: int, value: =@ctx.response.body.next }\n  ${key}`,
          'functions/rest-get-keyed.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/keyed\nparameters:\n  key: { location: query, type: secret, value: api-key }\n`,
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    await platform.api('PUT', '/api/v1/solutions/crm/credentials/api-key', {
      token: admin,
      body: { kind: 'secret', value: SECRET, origins: [service.url] },
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.url });
    const page = await context.newPage();
    await page.goto(`${platform.url}/`);
    expect(page.url()).toBe(`${platform.url}/console/`);
    await page.getByLabel('User name').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'crm' }).click();
    await page.getByLabel('Search functions').fill('nothing-like-it');
    await expect
      .poll(() => page.getByRole('navigation').textContent())
      .toContain('No function matches nothing-like-it.');
    await page.getByLabel('Search functions').fill('');
    await page.getByRole('link', { name: /rest-get-items/ }).click();

    // A list parameter is JSON, checked as it is typed: `a,b` is refused in the page, nothing sent.
    const tags = page.getByLabel(/^tags/);
    await tags.fill('a,b');
    await expect
      .poll(() => page.locator('.field-problem').textContent())
      .toBe('Expected a JSON list, such as ["a", "b"]');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    expect(received).toEqual([]);
    await tags.fill('["red","blue"]');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await expect.poll(() => page.getByTestId('output').textContent()).toContain('p1');
    expect(received).toHaveLength(1);
    // The url as it went, beside the definition's.
    const sent = await page.locator('.sent').textContent();
    expect(sent).toContain(`${service.url}/items?page=1&tags=`);
    // Copy as curl: the request as shown, the credential masked.
    await page.getByText('Copy as curl').first().click();
    const curl = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(curl).toMatch(
      /^curl -X GET 'http:\/\/127\.0\.0\.1:\d+\/items\?page=1&tags=.*' .*-H 'x-api-key: \*\*\*'/,
    );
    expect(curl).not.toContain(SECRET);

    // All pages: three pages, one at a time, or together.
    await page.getByRole('button', { name: 'All pages' }).click();
    const pages = page.getByLabel('Pages');
    await expect.poll(() => pages.locator('.status').textContent()).toContain('3 pages, all of them');
    expect(await pages.textContent()).toContain('page 1 of 3');
    await pages.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.getByTestId('output').textContent()).toContain('p2');
    await pages.getByRole('button', { name: 'All pages together' }).click();
    const together = await page.getByTestId('output').textContent();
    for (const id of ['p1', 'p2', 'p3']) expect(together).toContain(id);
    await page.screenshot({ path: join(SHOTS, '11-all-pages.png'), fullPage: true });
    const shown = (await page.content()) + curl;
    expect(shown).not.toContain(SECRET);
    await context.close();

    // A user sees the url as sent too (not the raw exchange): credentials masked.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const bobPage = await phone.newPage();
    await bobPage.goto(`${platform.url}/console/#/s/crm/f/rest-get-items`);
    await bobPage.getByLabel('User name').fill('bob');
    await bobPage.getByLabel('Password').fill(PASSWORD);
    await bobPage.getByRole('button', { name: 'Sign in' }).click();
    await bobPage.getByRole('button', { name: 'Preview', exact: true }).click();
    await expect.poll(() => bobPage.locator('.sent').textContent()).toContain(`${service.url}/items?page=1`);
    expect(await bobPage.getByText('Copy as curl').count()).toBe(0);
    await phone.close();
    const session = await platform.api('POST', '/api/v1/users/bob/tokens', { token: admin, body: {} });
    const keyed = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-keyed/execute', {
      token: session.body.token,
      body: { sent: true },
    });
    expect(keyed.body.sent).toMatchObject({
      method: 'GET',
      url: expect.stringContaining(`${service.url}/keyed?key=`),
    });
    expect(keyed.text).not.toContain(SECRET);
    expect(keyed.body.trace).toBeUndefined();
  });

  it('history: who published what when, a diff between versions, and publishing an older version again (audited); a user may look but not republish', async () => {
    const received: string[] = [];
    const service = await testServer((req, res) => {
      received.push(req.url);
      json(res, 200, { at: req.url });
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    for (const [name, role] of [
      ['alice', 'author'],
      ['bob', 'user'],
    ] as const)
      await platform.api('POST', '/api/v1/users', {
        token: admin,
        body: { name, role, solutions: ['crm'], password: PASSWORD },
      });
    const fn = (path: string) => `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}${path}\n`;
    const v1 = {
      'solution.yaml': 'name: crm\ntitle: Customer desk\n',
      'functions/rest-get-list.platform': fn('/v1'),
    };
    const v2 = {
      ...v1,
      'functions/rest-get-list.platform': fn('/v2'),
      'functions/rest-get-other.platform': fn('/other'),
    };
    for (const files of [v1, v2])
      expect(
        (await platform.api('PUT', '/api/v1/solutions/crm', { token: admin, body: { files } })).status,
      ).toBe(201);
    // A user may read the history, not publish from it.
    const bobToken = (await platform.api('POST', '/api/v1/users/bob/tokens', { token: admin, body: {} })).body
      .token;
    expect((await platform.api('GET', '/api/v1/solutions/crm/versions', { token: bobToken })).status).toBe(
      200,
    );
    expect(
      (await platform.api('POST', '/api/v1/solutions/crm/versions/1/publish', { token: bobToken })).status,
    ).toBe(403);

    // Bob (a user) on a phone first, then Alice (an author) on a desktop, who republishes.
    for (const width of [390, 1280]) {
      const context = await browser.newContext({ viewport: { width, height: 844 } });
      const page = await context.newPage();
      await page.goto(`${platform.url}/console/`);
      await page.getByLabel('User name').fill(width === 1280 ? 'alice' : 'bob');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const card = page.getByRole('listitem').filter({ hasText: 'Customer desk' });
      await expect.poll(() => card.textContent()).toMatch(/version 2 · 2 functions · published .* by admin/);
      await page.goto(`${platform.url}/console/#/s/crm/versions`);
      const changes = page.getByLabel('Changes between versions');
      await expect.poll(() => changes.textContent()).toContain('functions/rest-get-other.platform added');
      const diff = await changes.textContent();
      expect(diff).toContain(`- url: ${service.url}/v1`);
      expect(diff).toContain(`+ url: ${service.url}/v2`);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'),
      ).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `12-versions-${width}.png`), fullPage: true });
      if (width === 390) {
        expect(await page.getByRole('button', { name: 'Publish version 1 again' }).count()).toBe(0);
        await context.close();
        continue;
      }
      await page.getByRole('button', { name: 'Publish version 1 again' }).click();
      const ask = page.getByRole('alertdialog', { name: 'Publish version 1 again?' });
      expect(await ask.textContent()).toContain('Its files become version 3');
      expect((await platform.api('GET', '/api/v1/solutions/crm', { token: admin })).body.version).toBe(2);
      await ask.getByRole('button', { name: 'Publish version 1' }).click();
      await expect
        .poll(() => page.getByRole('status').textContent())
        .toBe('Published version 1 again, as version 3.');
      await context.close();
    }
    const current = (await platform.api('GET', '/api/v1/solutions/crm', { token: admin })).body;
    expect(current).toMatchObject({
      version: 3,
      publishedBy: 'alice',
      files: ['functions/rest-get-list.platform', 'solution.yaml'],
    });
    await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-list/execute', {
      token: admin,
      body: {},
    });
    expect(received).toEqual(['/v1']);
    const audit = (await platform.api('GET', '/api/v1/solutions/crm/executions', { token: admin })).body
      .entries;
    expect(audit).toContainEqual(
      expect.objectContaining({ action: 'publish', actor: 'alice', target: 'version 3 (from version 1)' }),
    );
  });

  it('a datasource preview shows the rows each table would get; one that sends POST asks first and sends nothing before', async () => {
    const received: string[] = [];
    const service = await testServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      json(res, 200, [
        { id: 'c1', name: 'Ada', city: 'Oslo' },
        { id: 'c2', name: 'Grace', city: 'Bergen' },
      ]);
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'bob', role: 'user', solutions: ['crm'], password: PASSWORD },
    });
    const entities = (fn: string) =>
      `type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: customers\n      function: ${fn}\n`;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-customers.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/customers\n`,
          'functions/rest-search-customers.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${service.url}/search\n`,
          'datasources/customers.platform': `${entities('rest-get-customers')}  query: SELECT json_extract(data, '$.city') AS city FROM [customers] ORDER BY id\n`,
          'datasources/found.platform': entities('rest-search-customers'),
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${platform.url}/console/#/s/crm/d/customers`);
    await page.getByLabel('User name').fill('bob');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const view = page.getByLabel('Datasource customers');
    await expect.poll(() => view.textContent()).toContain('table customers from rest-get-customers');
    await view.getByRole('button', { name: 'Preview' }).click();
    const table = view.getByTestId('table-customers');
    await expect.poll(() => table.textContent()).toContain('Grace');
    expect(await view.textContent()).toContain('1 page, 2 records · showing 2 of 2 rows');
    expect(await view.getByTestId('query-rows').textContent()).toContain('Bergen');
    expect(
      await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'),
    ).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, '14-datasource-preview-390.png'), fullPage: true });
    expect(received).toEqual(['GET /customers']);

    await page.goto(`${platform.url}/console/#/s/crm/d/found`);
    const found = page.getByLabel('Datasource found');
    await found.getByRole('button', { name: 'Preview' }).click();
    const ask = page.getByRole('alertdialog', { name: "Send the datasource's requests?" });
    expect(await ask.textContent()).toContain('POST (rest-search-customers)');
    expect(received).toEqual(['GET /customers']);
    await ask.getByRole('button', { name: 'Run the preview' }).click();
    await expect.poll(() => found.getByTestId('table-customers').textContent()).toContain('Ada');
    expect(received).toEqual(['GET /customers', 'POST /search']);
    // Nothing was stored on the platform.
    expect(bytesOf(platform.dataDir)).not.toContain('Bergen');
    await context.close();
  });

  it('an action preview shows the local change and the call it would queue, sending nothing', async () => {
    const received: string[] = [];
    const service = await testServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      json(res, 200, {});
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'bob', role: 'user', solutions: ['crm'], password: PASSWORD },
    });
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-update-customer.platform': `provider: DATA_PROVIDER_REST\nmethod: PATCH\nurl: ${service.url}/customers/{id}\nparameters:\n  id: { location: path, type: string, required: true }\n  name: { location: body, type: string }\n`,
          'actions/rename-customer.platform':
            'type: action.execute-entity\noptions:\n  provider: DATA_PROVIDER_REST\n  entity: customers\n  method: update\n  function: rest-update-customer\n  data:\n    id: =@ctx.current.item.id\n    name: =@ctx.components.name.state.value\n  parameters:\n    id: =@ctx.record.id\n    name: =@ctx.record.name\n',
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${platform.url}/console/#/s/crm/a/rename-customer`);
    await page.getByLabel('User name').fill('bob');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const preview = page.getByLabel('Preview of action rename-customer');
    await preview.getByLabel('current.item.id').fill('c-1');
    await preview.getByLabel('components.name.state.value').fill('Grace');
    await preview.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.getByTestId('row-after').textContent()).toContain('"Grace"');
    const call = await page.getByTestId('queued-call').textContent();
    expect(call).toContain('"rest-update-customer"');
    expect(call).toContain('"c-1"');
    expect(received).toEqual([]);
    expect(
      await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'),
    ).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, '14-action-preview-390.png'), fullPage: true });
    await context.close();
  });

  it('a preview that is not GET asks first, naming the method and the url; nothing is sent before, or after Cancel', async () => {
    const received: string[] = [];
    const service = await testServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      json(res, 201, { id: 'c-9' });
    });
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'bob', role: 'user', solutions: ['crm'], password: PASSWORD },
    });
    await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-create-customer.platform': `provider: DATA_PROVIDER_REST\nmethod: POST\nurl: ${service.url}/customers\nparameters:\n  name: { location: body, type: string, value: Ada }\n`,
        },
      },
    });
    for (const width of [1280, 390]) {
      const context = await browser.newContext({ viewport: { width, height: 844 } });
      const page = await context.newPage();
      await page.goto(`${platform.url}/console/#/s/crm/f/rest-create-customer`);
      await page.getByLabel('User name').fill('bob');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Preview' }).click();
      const ask = page.getByRole('alertdialog', { name: 'Send POST?' });
      expect(await ask.textContent()).toContain(
        `This preview sends POST to ${service.url}/customers: it may change data there.`,
      );
      await page.screenshot({ path: join(SHOTS, `9-confirm-post-${width}.png`) });
      await ask.getByRole('button', { name: 'Cancel' }).click();
      expect(await ask.count()).toBe(0);
      expect(received).toEqual(width === 1280 ? [] : ['POST /customers']);
      await page.getByRole('button', { name: 'Preview' }).click();
      await page.getByRole('button', { name: 'Send POST' }).click();
      await expect.poll(() => page.getByTestId('output').textContent()).toContain('c-9');
      expect(received).toEqual(width === 1280 ? ['POST /customers'] : ['POST /customers', 'POST /customers']);
      await context.close();
    }
  });
});

describe('what the console lets each role do', () => {
  it("a user sees previews only; a forged cross-site form post with an admin's cookie changes nothing", async () => {
    const service = await testServer((_req, res) => json(res, 200, { id: 'c-1' }));
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const admin = platform.adminToken;
    for (const [name, role] of [
      ['bob', 'user'],
      ['root', 'admin'],
    ] as const) {
      await platform.api('POST', '/api/v1/users', {
        token: admin,
        body: { name, role, solutions: ['crm'], password: PASSWORD },
      });
    }
    await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-customer.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/customers/1\n`,
        },
      },
    });
    const signIn = async (name: string, hash: string) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${platform.url}/console/${hash}`);
      await page.getByLabel('User name').fill(name);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      return { context, page };
    };

    // A user: previews, without credentials, executions, users or the raw exchange.
    const asUser = await signIn('bob', '#/s/crm/credentials');
    const userPage = asUser.page;
    await expect.poll(() => userPage.getByRole('link', { name: /rest-get-customer/ }).count()).toBe(1);
    expect(await userPage.getByRole('link', { name: 'Credentials' }).count()).toBe(0);
    expect(await userPage.getByRole('link', { name: 'Executions' }).count()).toBe(0);
    expect(await userPage.getByRole('link', { name: 'Users' }).count()).toBe(0);
    expect(await userPage.getByRole('button', { name: 'Add credential' }).count()).toBe(0);
    await userPage.getByRole('link', { name: /rest-get-customer/ }).click();
    await userPage.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => userPage.getByTestId('output').textContent()).toContain('"c-1"');
    expect(await userPage.getByLabel('Raw request and response').count()).toBe(0);
    await userPage.screenshot({ path: join(SHOTS, '9-user-role.png') });
    await asUser.context.close();

    // An admin signed in, lured to a page on another origin that posts a form to the platform:
    // the cookie goes along (same site), the CSRF token cannot, and nothing changes.
    const evil = await testServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<form method="post" action="${platform.url}/api/v1/users"><input name="name" value="mallory"><input name="role" value="admin"><input name="password" value="mallory-password-1"></form><script>document.forms[0].submit()</script>`,
      );
    });
    const asAdmin = await signIn('root', '');
    await expect.poll(() => asAdmin.page.getByRole('link', { name: 'Users' }).count()).toBe(1);
    await asAdmin.page.goto(evil.url);
    await asAdmin.page.waitForURL(`${platform.url}/api/v1/users`);
    expect(await asAdmin.page.textContent('body')).toContain('CSRF_INVALID');
    const users = await platform.api('GET', '/api/v1/users', { token: admin });
    expect(users.body.users.map((u: { name: string }) => u.name)).not.toContain('mallory');
    await asAdmin.context.close();
  });

  it('a function that calls as each user: Connect, back on the preview connected as the account, Disconnect', async () => {
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const auth = await authServer(`${platform.url}/api/v1/oauth/callback`);
    const remote = await testServer(async (req, res) => {
      const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      const found = token ? await auth.provider.AccessToken.find(token) : undefined;
      if (!found) return json(res, 401, { error: 'invalid_token' });
      json(res, 200, { account: found.accountId });
    });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'ada', role: 'user', solutions: ['crm'], password: PASSWORD },
    });
    await platform.api('PUT', '/api/v1/solutions/crm', {
      token: admin,
      body: {
        files: {
          'functions/rest-get-me.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${remote.url}/me\nparameters:\n  accessToken: { location: header, type: graph.oauth, value: graph }\n`,
        },
      },
    });
    const stored = await platform.api('PUT', '/api/v1/solutions/crm/credentials/graph', {
      token: admin,
      body: {
        kind: 'oauth',
        tokenEndpoint: auth.tokenEndpoint,
        authorizationEndpoint: auth.authorizationEndpoint,
        issuer: auth.issuer,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        scopes: ['openid', 'api', 'offline_access'],
        grantType: 'authorization_code',
      },
    });
    expect(stored.status).toBe(201);

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${platform.url}/console/#/s/crm/f/rest-get-me`);
    await page.getByLabel('User name').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('.credential-param').textContent()).toContain('Not connected');
    // Previewing first says why it cannot run, with the way to fix it.
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('CONNECTION_REQUIRED');
    await page.screenshot({ path: join(SHOTS, '9-connect-needed.png') });
    await page.getByRole('alert').getByRole('link', { name: 'Connect' }).click();
    // The provider's own pages: log in as ada-account, consent.
    await page.locator('input[name=login]').fill('ada-account');
    await page.locator('input[name=password]').fill('any-password');
    await page.locator('button[type=submit]').click();
    await page.locator('button[type=submit]').click();
    // Back on the preview, connected.
    await expect
      .poll(() => page.locator('.credential-param').textContent(), { timeout: 15_000 })
      .toContain('Connected as ada-account');
    await page.screenshot({ path: join(SHOTS, '10-connected.png') });
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.getByTestId('output').textContent()).toContain('ada-account');
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await expect.poll(() => page.locator('.credential-param').textContent()).toContain('Not connected');
    await context.close();
  });
});
