import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

const API_KEY = 'ak-Zq8mK2pLx9Rv4Tn7Wc3Y';
const PASSWORD = 'pw-Hd6Yb3cW7nT4vR9x';
const SECRET = 'sec-M2pL9x4TnKz8q7WcY';

/** A resource server that checks each kind of credential and answers 401 otherwise. */
async function resourceServer() {
  return testServer((req, res) => {
    const ok =
      req.headers['x-api-key'] === API_KEY ||
      req.headers.authorization === `Basic ${Buffer.from(`ada:${PASSWORD}`).toString('base64')}` ||
      req.headers['x-secret'] === SECRET;
    json(res, ok ? 200 : 401, ok ? { items: [{ id: 1 }] } : { error: 'unauthorized' });
  });
}

describe('credentials from the CLI, used by the templates', () => {
  test('set (from stdin), list, templates run against a real server; no plaintext anywhere', async () => {
    const server = await resourceServer();
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    const outputs: string[] = [];
    const cli = async (args: string[], input?: string) => {
      const r = await runCli(args, { cwd: root, env, ...(input === undefined ? {} : { input }) });
      outputs.push(r.stdout, r.stderr);
      return r;
    };

    for (const template of ['api-key', 'basic-auth', 'secret']) {
      expect(
        (await cli(['new', `rest-${template}`, '-t', template, '--url', `${server.url}/items`])).code,
      ).toBe(0);
      // Before the credential is stored: exit 4, nothing sent with a credential.
      const before = await cli(['run', `rest-${template}`]);
      expect(before.code).toBe(4);
      expect(before.stderr).toContain('CREDENTIAL_NOT_FOUND');
    }
    expect(server.requests).toHaveLength(0);

    expect((await cli(['credentials', 'set', 'api-key', '--kind', 'secret'], `${API_KEY}\n`)).code).toBe(0);
    expect(
      (await cli(['credentials', 'set', 'basic-auth', '--kind', 'basic', '--username', 'ada'], PASSWORD))
        .code,
    ).toBe(0);
    expect((await cli(['credentials', 'set', 'secret', '--kind', 'secret'], SECRET)).code).toBe(0);
    const list = await cli(['credentials', 'list']);
    expect(list.stdout).toBe('KEY         KIND\napi-key     secret\nbasic-auth  basic\nsecret      secret\n');

    for (const template of ['api-key', 'basic-auth', 'secret']) {
      const run = await cli(['run', `rest-${template}`, '--verbose']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ items: [{ id: 1 }] });
    }
    expect(
      server.requests.map(
        (r) => r.headers['x-api-key'] ?? r.headers['x-secret'] ?? r.headers.authorization?.slice(0, 6),
      ),
    ).toEqual([API_KEY, 'Basic ', SECRET]);

    const storeBytes = readFileSync(join(root, '.restfn', 'credentials.db'), 'latin1');
    for (const plain of [API_KEY, PASSWORD, SECRET, Buffer.from(`ada:${PASSWORD}`).toString('base64')]) {
      expect(storeBytes).not.toContain(plain);
      for (const out of outputs) expect(out).not.toContain(plain);
    }
    expect(outputs.join('')).toContain('> x-api-key: ***');
    expect(outputs.join('')).toContain('> authorization: ***');

    expect((await cli(['credentials', 'delete', 'secret'])).code).toBe(0);
    expect((await cli(['run', 'rest-secret'])).code).toBe(4);
  }, 30_000); // about fifteen CLI processes

  test('secrets are never taken from arguments; a wrong key is a clear error', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    const argv = await runCli(['credentials', 'set', 'k', '--kind', 'secret', API_KEY], { cwd: root, env });
    expect(argv.code).toBe(2);
    const empty = await runCli(['credentials', 'set', 'k', '--kind', 'secret'], {
      cwd: root,
      env,
      input: '',
    });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('SECRET_MISSING');
    await runCli(['credentials', 'set', 'k', '--kind', 'secret'], { cwd: root, env, input: API_KEY });
    const otherKey = { RESTFN_CREDENTIALS_KEY: Buffer.alloc(32, 7).toString('base64') };
    const server = await resourceServer();
    await runCli(['new', 'rest-k', '-t', 'api-key', '--url', `${server.url}/x`], { cwd: root, env });
    const fnPath = join(root, 'functions', 'rest-k.platform');
    writeFileSync(fnPath, readFileSync(fnPath, 'utf8').replace('value: api-key', 'value: k'));
    const wrong = await runCli(['run', 'rest-k'], { cwd: root, env: { ...env, ...otherKey } });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('CREDENTIAL_DECRYPT');
    expect(wrong.stderr).not.toContain(API_KEY);
  });

  test('parallel `credentials set` processes keep every credential; state folder and files are owner-only', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    // No key yet: every process races to create it too, and all must end up with the same one.
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    const results = await Promise.all(
      keys.map((k) =>
        runCli(['credentials', 'set', k, '--kind', 'secret'], { cwd: root, env, input: `${SECRET}-${k}` }),
      ),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const list = await runCli(['credentials', 'list', '--format', 'json'], { cwd: root, env });
    expect(JSON.parse(list.stdout)).toEqual(keys.map((key) => ({ key, kind: 'secret' })));

    // Each value decrypts with the one key: a run sends it (the resource server expects another).
    const server = await resourceServer();
    await runCli(['new', 'rest-k', '-t', 'secret', '--url', `${server.url}/x`], { cwd: root, env });
    const fnPath = join(root, 'functions', 'rest-k.platform');
    writeFileSync(fnPath, readFileSync(fnPath, 'utf8').replace('value: secret', 'value: k4'));
    await runCli(['run', 'rest-k'], { cwd: root, env });
    expect(server.requests[0]?.headers['x-secret']).toBe(`${SECRET}-k4`);

    expect(statSync(join(root, '.restfn')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, '.restfn', 'credentials.db')).mode & 0o777).toBe(0o600);
  }, 60_000);

  test('a local call that needs a secret does not execute', async () => {
    const server = await resourceServer();
    const root = tempSolution({
      'functions/rest-local.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\nuseLocalCall: true\nparameters:\n  x-api-key: { location: header, type: secret, value: api-key }\n`,
    });
    const { loadSolution } = await import('../../src/definition/solution.js');
    const { createRuntime } = await import('../../src/runtime/runtime.js');
    const runtime = createRuntime(loadSolution(root), {
      credentials: {
        apply: async () => ({ values: [{ name: 'x-api-key', location: 'header', value: API_KEY }] }),
      },
    });
    await expect(runtime.execute('rest-local')).rejects.toMatchObject({ code: 'LOCAL_CALL_CREDENTIAL' });
    await runtime.close();
    expect(server.requests).toHaveLength(0);
  });
});

describe('--origin binds a device credential to where it may be sent', () => {
  test('bound: sent to its origin, refused elsewhere with nothing sent; unbound: works, with a warning naming the origins to give', async () => {
    const server = await resourceServer();
    const elsewhere = await testServer((_req, res) => json(res, 200, { stolen: true }));
    const header = 'parameters:\n  x-api-key: { location: header, type: secret, value: api-key }\n';
    const root = tempSolution({
      'solution.yaml': 'name: t\n',
      'functions/rest-own.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/items\n${header}`,
      'functions/rest-away.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${elsewhere.url}/items\n${header}`,
    });
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    const cli = (args: string[], input?: string) =>
      runCli(args, { cwd: root, env, ...(input === undefined ? {} : { input }) });

    const unbound = await cli(['credentials', 'set', 'api-key', '--kind', 'secret'], `${API_KEY}\n`);
    expect(unbound.code).toBe(0);
    // Both functions name it: the warning offers both origins.
    expect(unbound.stderr).toContain(`--origin ${server.url}`);
    expect(unbound.stderr).toContain("credential 'api-key' has no --origin");
    expect((await cli(['run', 'rest-own'])).code).toBe(0);

    const wrong = await cli(
      ['credentials', 'set', 'api-key', '--kind', 'secret', '--origin', `${server.url}/items`],
      `${API_KEY}\n`,
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('is not an origin: write scheme://host[:port]');

    const bound = await cli(
      ['credentials', 'set', 'api-key', '--kind', 'secret', '--origin', server.url],
      `${API_KEY}\n`,
    );
    expect(bound.code).toBe(0);
    expect(bound.stderr).toBe(`restfn: stored secret credential 'api-key', sent only to ${server.url}\n`);
    const own = await cli(['run', 'rest-own']);
    expect(own.code, own.stderr).toBe(0);
    const away = await cli(['run', 'rest-away']);
    expect(away.code).toBe(4);
    expect(away.stderr).toContain('CREDENTIAL_ORIGIN');
    expect(away.stderr).toContain(`may not be sent to ${elsewhere.url}`);
    expect(elsewhere.requests).toHaveLength(0);
    expect(away.stdout + away.stderr).not.toContain(API_KEY);
  });
});

describe('static bearer tokens', () => {
  test("--kind bearer sends Authorization: Bearer <token> (a pasted 'Bearer ' is not doubled); a bare secret in Authorization gets a 401 that says what to do", async () => {
    const TOKEN = 'tok-8Hq2Lm5Xw9Rv3';
    const server = await testServer((req, res) =>
      req.headers.authorization === `Bearer ${TOKEN}`
        ? json(res, 200, { ok: true })
        : json(res, 401, { error: 'no' }),
    );
    const root = tempSolution({ 'solution.yaml': 'name: t\n' });
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    const cli = (args: string[], input?: string) =>
      runCli(args, { cwd: root, env, ...(input === undefined ? {} : { input }) });
    expect((await cli(['new', 'rest-me', '--template', 'bearer', '--url', `${server.url}/me`])).code).toBe(0);

    // The token stored as a plain secret: sent as it is, refused, and the error says how to fix it.
    expect(
      (await cli(['credentials', 'set', 'bearer-token', '--kind', 'secret', '--origin', server.url], TOKEN))
        .code,
    ).toBe(0);
    const bare = await cli(['run', 'rest-me']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('REMOTE_ERROR');
    expect(bare.stderr).toContain('restfn credentials set bearer-token --kind bearer');
    expect(bare.stderr).not.toContain(TOKEN);

    const stored = await cli(
      ['credentials', 'set', 'bearer-token', '--kind', 'bearer', '--origin', server.url],
      `Bearer ${TOKEN}\n`,
    );
    expect(stored.code).toBe(0);
    const run = await cli(['run', 'rest-me']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ ok: true });
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect((await cli(['credentials', 'list'])).stdout).toMatch(/^bearer-token +bearer$/m);

    // The library, given no credentials option, reads the same store as the CLI.
    const held = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = env.XDG_CONFIG_HOME;
    try {
      const runtime = createRuntime(loadSolution(root));
      expect(await runtime.execute('rest-me')).toMatchObject({ status: 'ok', output: { ok: true } });
      await runtime.close();
    } finally {
      if (held === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = held;
    }

    // An OAuth parameter naming it: the kind says what a bearer credential is for.
    const oauth = tempSolution({
      'solution.yaml': 'name: u\n',
      'functions/rest-o.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/me\nparameters:\n  accessToken: { location: header, type: x.oauth, value: bearer-token }\n`,
    });
    const other = (args: string[], input?: string) =>
      runCli(args, { cwd: oauth, env, ...(input === undefined ? {} : { input }) });
    await other(['credentials', 'set', 'bearer-token', '--kind', 'bearer', '--origin', server.url], TOKEN);
    const mismatch = await other(['run', 'rest-o']);
    expect(mismatch.code).toBe(4);
    expect(mismatch.stderr).toContain('CREDENTIAL_KIND');
    expect(mismatch.stderr).toContain("a static token is sent by a 'type: secret' parameter");
  });
});

describe('a mistyped credential key', () => {
  test('CREDENTIAL_NOT_FOUND names the stored key it is closest to', async () => {
    const server = await testServer((_req, res) => json(res, 200, {}));
    const root = tempSolution({
      'solution.yaml': 'name: t\n',
      'functions/rest-get.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/x\nparameters:\n  x-api-key: { location: header, type: secret, value: crm-kye }\n`,
    });
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    await runCli(['credentials', 'set', 'crm-key', '--kind', 'secret', '--origin', server.url], {
      cwd: root,
      env,
      input: 'v-1234567890',
    });
    const run = await runCli(['run', 'rest-get'], { cwd: root, env });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      "the credential 'crm-kye', which is not stored (did you mean 'crm-key'? it is)",
    );
    expect(server.requests).toHaveLength(0);
  });
});
