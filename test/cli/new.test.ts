import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { TEMPLATE_NAMES } from '../../src/definition/templates.js';
import { CLI, runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

describe('restfn new', () => {
  test('every template writes a file that validates without findings', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    for (const template of TEMPLATE_NAMES) {
      const r = await runCli(['new', `rest-${template}`, '--template', template], { cwd: root });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`created functions/rest-${template}.platform\n`);
    }
    const v = await runCli(['validate', '--format', 'json'], { cwd: root });
    expect(JSON.parse(v.stdout)).toMatchObject({ files: 1 + TEMPLATE_NAMES.length, errors: 0, warnings: 0 });
  });

  test('templates follow the spec table (credential parameter per template)', async () => {
    const root = tempSolution();
    const expected = {
      'api-key': /x-api-key:\n\s+location: header\n\s+type: secret/,
      'basic-auth': /basicAuth:\n\s+location: header\n\s+type: secret/,
      oauth: /accessToken:\n\s+location: header\n(\s+#.*\n)?\s+type: custom\.oauth/,
      secret: /type: secret/,
    } as const;
    for (const [template, pattern] of Object.entries(expected)) {
      await runCli(['new', `t-${template}`, '-t', template, '--solution', root]);
      expect(readFileSync(join(root, 'functions', `t-${template}.platform`), 'utf8')).toMatch(pattern);
    }
    await runCli(['new', 't-rest', '--solution', root]);
    expect(readFileSync(join(root, 'functions', 't-rest.platform'), 'utf8')).not.toMatch(
      /secret|oauth|Authorization/,
    );
  });

  test('the extension is added once, and subfolders are allowed', async () => {
    const root = tempSolution();
    await runCli(['new', 'rest-get-a.platform', '--solution', root]);
    await runCli(['new', 'crm/rest-get-b', '--solution', root, '--url', 'http://127.0.0.1:9/b']);
    expect(existsSync(join(root, 'functions', 'rest-get-a.platform'))).toBe(true);
    expect(existsSync(join(root, 'functions', 'rest-get-a.platform.platform'))).toBe(false);
    expect(readFileSync(join(root, 'functions', 'crm', 'rest-get-b.platform'), 'utf8')).toContain(
      'url: http://127.0.0.1:9/b',
    );
  });

  test('a name breaking the naming rule is refused with the corrected name', async () => {
    const root = tempSolution();
    const r = await runCli(['new', 'Rest_Get Customers', '--solution', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('INVALID_NAME');
    expect(r.stderr).toContain("for example 'rest-get-customers'");
    expect(existsSync(join(root, 'functions'))).toBe(false);
  });

  test('an existing file is never overwritten, also across subfolders', async () => {
    const root = tempSolution();
    const path = join(root, 'functions', 'rest-get-a.platform');
    await runCli(['new', 'rest-get-a', '--solution', root]);
    writeFileSync(path, 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://mine\n');
    const again = await runCli(['new', 'rest-get-a', '--solution', root, '-t', 'oauth']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('FILE_EXISTS');
    const elsewhere = await runCli(['new', 'other/rest-get-a', '--solution', root]);
    expect(elsewhere.code).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('provider: DATA_PROVIDER_REST\nmethod: GET\nurl: http://mine\n');
  });

  test('--url is written as one YAML value: line breaks, #, ": " and quotes add no keys', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    const urls = {
      'rest-line-break': 'https://api.example.com/items\nprovider: EVIL\nmethod: DELETE',
      'rest-comment': 'https://api.example.com/items #not a comment',
      'rest-colon': 'https://api.example.com/a: b',
      'rest-quotes': `https://api.example.com/"items"/'x'`,
      'rest-ftp': 'ftp://files.example.com/items',
    };
    for (const [name, url] of Object.entries(urls)) {
      const r = await runCli(['new', name, '--url', url], { cwd: root });
      expect(r.code, r.stderr).toBe(0);
      const written = parse(readFileSync(join(root, 'functions', `${name}.platform`), 'utf8'));
      // Exactly the given text, and the template's keys only (nothing injected, nothing dropped).
      expect(written.url).toBe(url);
      expect(Object.keys(written)).toEqual([
        'provider',
        'method',
        'url',
        'format',
        'parameters',
        'outputTransform',
      ]);
      expect(written.method).toBe('GET');
    }
    // Validation then judges the url itself, with its usual code.
    const v = await runCli(['validate', '--format', 'json'], { cwd: root });
    const findings = JSON.parse(v.stdout).diagnostics.map(
      (d: { file: string; code: string }) => `${d.file} ${d.code}`,
    );
    expect(findings.sort()).toEqual([
      'functions/rest-ftp.platform URL_INVALID',
      'functions/rest-line-break.platform URL_INVALID',
    ]);
    expect(v.code).toBe(3);
  });
});

describe('starting a solution', () => {
  test('restfn init writes a solution that validates and runs, and a .gitignore for its state; never over an existing one', async () => {
    const server = await testServer((_req, res) => json(res, 200, { items: [{ id: 1 }] }));
    const parent = tempSolution({});
    const init = await runCli(['init', 'shop', '--url', `${server.url}/items`], { cwd: parent });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toBe(
      [
        'created shop/solution.yaml',
        'created shop/functions/rest-get-items.platform',
        'created shop/.gitignore',
        '',
      ].join('\n'),
    );
    const root = join(parent, 'shop');
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toContain('.restfn/');
    expect((await runCli(['validate'], { cwd: root })).code).toBe(0);
    const run = await runCli(['run', 'rest-get-items'], { cwd: root });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ items: [{ id: 1 }] });
    const again = await runCli(['init', 'shop'], { cwd: parent });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('FILE_EXISTS');
  });

  test('restfn new --url with {placeholders} declares them as required path parameters', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    const made = await runCli(
      [
        'new',
        'rest-get-order',
        '--template',
        'bearer',
        '--url',
        'https://api.example.com/shops/{shop}/orders/{orderId}',
      ],
      { cwd: root },
    );
    expect(made.code, made.stderr).toBe(0);
    const text = readFileSync(join(root, 'functions', 'rest-get-order.platform'), 'utf8');
    expect(text).toContain('shop: { location: path, type: string, required: true }');
    expect(text).toContain('orderId: { location: path, type: string, required: true }');
    expect((await runCli(['validate'], { cwd: root })).code).toBe(0);
    const missing = await runCli(['run', 'rest-get-order'], { cwd: root });
    expect(missing.stderr).toContain(
      "missing required parameters 'shop', 'orderId'; pass -p shop=VALUE -p orderId=VALUE",
    );
  });

  test('--template datasource and action write files that validate and work with the function they name', async () => {
    const customers = new Map<string, Record<string, unknown>>([
      ['c-1', { id: 'c-1', name: 'Old', price: 1 }],
    ]);
    const server = await testServer((req, res) => {
      const id = req.url.split('/')[2];
      if (req.method === 'GET') return json(res, 200, [...customers.values()]);
      if (req.method === 'POST') {
        const made = { ...JSON.parse(req.body), id: 'c-2' };
        customers.set('c-2', made);
        return json(res, 201, made);
      }
      if (req.method === 'PATCH') {
        customers.set(id!, { ...customers.get(id!), ...JSON.parse(req.body), id });
        return json(res, 200, customers.get(id!));
      }
      customers.delete(id!);
      return json(res, 204, undefined);
    });
    const fn = (method: string, path: string, body: string) =>
      `provider: DATA_PROVIDER_REST\nmethod: ${method}\nurl: ${server.url}${path}\nparameters:\n${body}`;
    const root = tempSolution({
      'solution.yaml': 'name: t\n',
      'functions/rest-get-customers.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/customers\n`,
      'functions/rest-create-customer.platform': fn(
        'POST',
        '/customers',
        '  name: { location: body, type: string }\n  price: { location: body, type: number }\n',
      ),
      'functions/rest-update-customer.platform': fn(
        'PATCH',
        '/customers/{id}',
        '  id: { location: path, type: string, required: true }\n  price: { location: body, type: number }\n',
      ),
      'functions/rest-delete-customer.platform': fn(
        'DELETE',
        '/customers/{id}',
        '  id: { location: path, type: string, required: true }\n',
      ),
    });
    const made = [
      ['customers', '-t', 'datasource', '-f', 'rest-get-customers'],
      ['create-customer', '-t', 'action', '-f', 'rest-create-customer', '-e', 'customers'],
      ['update-customer', '-t', 'action', '-f', 'rest-update-customer', '-e', 'customers'],
      ['delete-customer', '-t', 'action', '-f', 'rest-delete-customer', '-e', 'customers'],
    ];
    for (const args of made) {
      const r = await runCli(['new', ...args], { cwd: root });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(existsSync(join(root, 'datasources', 'customers.platform'))).toBe(true);
    const action = readFileSync(join(root, 'actions', 'update-customer.platform'), 'utf8');
    expect(action).toContain('method: update');
    expect(action).toContain(
      '# restfn action update-customer -p current.item.id=ID -p components.price.state.value=VALUE',
    );
    const v = await runCli(['validate', '--format', 'json'], { cwd: root });
    expect(JSON.parse(v.stdout)).toMatchObject({ files: 9, errors: 0, warnings: 0 });

    expect((await runCli(['sync', 'customers'], { cwd: root })).code).toBe(0);
    const created = await runCli(
      [
        'action',
        'create-customer',
        '-p',
        'components.name.state.value=Ada',
        '-p',
        'components.price.state.value=9',
      ],
      { cwd: root },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(customers.get('c-2')).toEqual({ id: 'c-2', name: 'Ada', price: 9 });
    const updated = await runCli(
      ['action', 'update-customer', '-p', 'current.item.id=c-1', '-p', 'components.price.state.value=5'],
      { cwd: root },
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(customers.get('c-1')).toEqual({ id: 'c-1', name: 'Old', price: 5 });
    const deleted = await runCli(['action', 'delete-customer', '-p', 'current.item.id=c-2'], { cwd: root });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect([...customers.keys()]).toEqual(['c-1']);
    const rows = await runCli(['query', 'customers'], { cwd: root });
    expect(JSON.parse(rows.stdout)).toEqual([{ id: 'c-1', data: { id: 'c-1', name: 'Old', price: 5 } }]);
  });

  test('--template datasource and action say what they need: a function that exists, a table', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    await runCli(['new', 'rest-get-items'], { cwd: root });
    const none = await runCli(['new', 'items', '-t', 'datasource'], { cwd: root });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      "--template datasource needs --function NAME: the function it uses (this solution has 'rest-get-items')",
    );
    const typo = await runCli(['new', 'items', '-t', 'datasource', '-f', 'rest-get-itmes'], { cwd: root });
    expect(typo.stderr).toContain(
      "FUNCTION_NOT_FOUND: --function: function 'rest-get-itmes' does not exist (did you mean 'rest-get-items'?)",
    );
    const table = await runCli(['new', 'change-item', '-t', 'action', '-f', 'rest-get-items'], { cwd: root });
    expect(table.stderr).toContain('--template action needs --entity TABLE');
    const badTable = await runCli(['new', 'items', '-t', 'datasource', '-f', 'rest-get-items', '-e', 'a]b'], {
      cwd: root,
    });
    expect(badTable.stderr).toContain('INVALID_TABLE');
    expect(existsSync(join(root, 'datasources'))).toBe(false);
    expect(existsSync(join(root, 'actions'))).toBe(false);
  });

  test('a credential template run before its credential is stored says which kind to store', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    for (const [template, kind] of [
      ['bearer', "restfn credentials set bearer-token --kind bearer'"],
      ['basic-auth', "restfn credentials set basic-auth --kind basic --username NAME'"],
      ['api-key', "restfn credentials set api-key --kind secret'"],
    ]) {
      await runCli(['new', `rest-${template}`, '-t', template!, '--url', 'http://127.0.0.1:9/items'], {
        cwd: root,
      });
      const r = await runCli(['run', `rest-${template}`], {
        cwd: root,
        env: { RESTFN_CREDENTIALS_KEY: Buffer.alloc(32, 7).toString('base64') },
      });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain(kind);
    }
  });

  test('init prints next steps that work from the same folder, as a shell reads them', async () => {
    const server = await testServer((_req, res) => json(res, 200, [{ id: 1 }]));
    const parent = tempSolution({});
    const init = await runCli(['init', 'my shop', '--url', `${server.url}/items`], { cwd: parent });
    expect(init.code, init.stderr).toBe(0);
    const steps = init.stderr.split('\n').filter((l) => l.startsWith('  restfn '));
    expect(steps[0]).toBe("  restfn run rest-get-items --solution 'my shop'");
    // Run by a shell, from the folder init ran in: `restfn` is the built CLI.
    // Asynchronously: the test's server answers from this process.
    const shell = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn('sh', ['-c', `restfn() { "${process.execPath}" "${CLI}" "$@"; }; ${steps[0]}`], {
        cwd: parent,
        env: { ...process.env, NO_COLOR: '1' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => {
        stdout += c;
      });
      child.stderr.on('data', (c) => {
        stderr += c;
      });
      child.on('close', (status) => done({ status, stdout, stderr }));
    });
    expect(shell.status, shell.stderr).toBe(0);
    expect(JSON.parse(shell.stdout)).toEqual([{ id: 1 }]);
    mkdirSync(join(parent, 'here'));
    const here = await runCli(['init', '--url', `${server.url}/items`], {
      cwd: join(parent, 'here'),
    });
    expect(here.stderr).toContain('  restfn run rest-get-items\n');
  });

  test("init names the first function for its url's last path segment, and its next step runs it", async () => {
    const server = await testServer((_req, res) => json(res, 200, [{ id: 1 }]));
    const parent = tempSolution({});
    const init = await runCli(['init', 'helpdesk', '--url', `${server.url}/tickets`], { cwd: parent });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('created helpdesk/functions/rest-get-tickets.platform\n');
    expect(init.stderr).toContain('  restfn run rest-get-tickets --solution helpdesk\n');
    const run = await runCli(['run', 'rest-get-tickets', '--solution', 'helpdesk'], { cwd: parent });
    expect(run.code, run.stderr).toBe(0);
    // Placeholders are no names; a path that names nothing keeps rest-get-items.
    const cases = [
      [`${server.url}/v1/Ticket_Lists/{id}?per_page=2`, 'rest-get-ticket-lists'],
      [`${server.url}/tickets.json`, 'rest-get-tickets'],
      [`${server.url}/{id}`, 'rest-get-items'],
      [`${server.url}/`, 'rest-get-items'],
    ] as const;
    for (const [i, [url, name]] of cases.entries()) {
      const made = await runCli(['init', `s${i}`, '--url', url], { cwd: parent });
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout, url).toContain(`created s${i}/functions/${name}.platform\n`);
      expect(made.stderr, url).toContain(`  restfn run ${name} --solution s${i}\n`);
    }
  });

  test('init --url with a query string writes query parameters, so the file validates without a warning', async () => {
    const server = await testServer((_req, res) => json(res, 200, []));
    const parent = tempSolution({});
    const init = await runCli(['init', 'shop', '--url', `${server.url}/items?per_page=2&state=open`], {
      cwd: parent,
    });
    expect(init.code, init.stderr).toBe(0);
    const root = join(parent, 'shop');
    const fn = parse(readFileSync(join(root, 'functions', 'rest-get-items.platform'), 'utf8'));
    expect(fn.url).toBe(`${server.url}/items`);
    expect(fn.parameters).toEqual({
      per_page: { location: 'query', type: 'number', value: 2 },
      state: { location: 'query', type: 'string', value: 'open' },
    });
    const v = await runCli(['validate', '--format', 'json'], { cwd: root });
    expect(JSON.parse(v.stdout)).toMatchObject({ errors: 0, warnings: 0 });
    expect((await runCli(['run', 'rest-get-items', '-p', 'per_page=5'], { cwd: root })).code).toBe(0);
    expect(server.requests.at(-1)!.url).toBe('/items?per_page=5&state=open');
  });

  test('--method is the HTTP method for function templates and the action method for -t action', async () => {
    const server = await testServer((req, res) => json(res, 201, { method: req.method }));
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    const made = await runCli(
      ['new', 'rest-create-item', '-t', 'rest', '--method', 'post', '--url', `${server.url}/items`],
      {
        cwd: root,
      },
    );
    expect(made.code, made.stderr).toBe(0);
    const created = parse(readFileSync(join(root, 'functions', 'rest-create-item.platform'), 'utf8'));
    expect(created.method).toBe('POST');
    // The plain template's page-size example is for lists: a POST goes without it.
    expect(created.parameters?.limit).toBeUndefined();
    expect((await runCli(['validate'], { cwd: root })).code).toBe(0);
    const bearer = await runCli(['new', 'rest-put-item', '-t', 'bearer', '-m', 'PUT'], { cwd: root });
    expect(bearer.code, bearer.stderr).toBe(0);
    expect(parse(readFileSync(join(root, 'functions', 'rest-put-item.platform'), 'utf8')).method).toBe('PUT');
    expect((await runCli(['run', 'rest-create-item'], { cwd: root })).stdout).toContain('"method": "POST"');
    const action = await runCli(
      ['new', 'add-item', '-t', 'action', '-f', 'rest-create-item', '-e', 'items', '-m', 'save'],
      {
        cwd: root,
      },
    );
    expect(action.code, action.stderr).toBe(0);
    expect(readFileSync(join(root, 'actions', 'add-item.platform'), 'utf8')).toContain('method: save');
    const mixed = await runCli(['new', 'rest-x', '-m', 'create'], { cwd: root });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain(
      "--method for a function template is the HTTP method: one of DELETE, GET, HEAD, PUT, PATCH, POST ('create' is what an action does: --template action)",
    );
    const wrong = await runCli(
      ['new', 'x', '-t', 'action', '-f', 'rest-create-item', '-e', 'items', '-m', 'POST'],
      {
        cwd: root,
      },
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("'POST' is an HTTP method: that is the function's");
  });
});
