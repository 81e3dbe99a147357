import { describe, expect, test } from 'vitest';
import { oauthState } from '../../src/cli/oauth-state.js';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { datasource } from '../helpers/sync.js';
import { tempSolution } from '../helpers/temp-solution.js';

describe('typos are not silent', () => {
  test('an unknown -p or --params name is an error with the closest declared name; nothing is sent', async () => {
    const server = await testServer((_, res) => json(res, 200, {}));
    const root = tempSolution({
      'functions/rest-get-items.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${server.url}/items
parameters:
  page: { location: query, type: int, value: 1 }
  limit: { location: query, type: int }
`,
    });
    const r = await runCli(['run', 'rest-get-items', '-p', 'pgae=2', '--params', '{"limit": 5, "zzz": 1}'], {
      cwd: root,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "restfn: error PARAMETER_UNKNOWN: function 'rest-get-items' has no parameter 'zzz', 'pgae' (did you mean 'page'?): its parameters are 'page', 'limit'\n",
    );
    expect(server.requests).toHaveLength(0);
    // Names every JavaScript object has are names like any other.
    for (const args of [
      ['-p', '__proto__=x'],
      ['--params', '{"__proto__": 1}'],
      ['-p', 'toString=1'],
    ]) {
      const odd = await runCli(['run', 'rest-get-items', ...args], { cwd: root });
      expect(odd.stderr, args.join(' ')).toContain('PARAMETER_UNKNOWN');
    }
    expect(server.requests).toHaveLength(0);
    const ok = await runCli(['run', 'rest-get-items', '-p', 'page=2'], { cwd: root });
    expect(ok.code, ok.stderr).toBe(0);
    expect(server.requests.map((q) => q.url)).toEqual(['/items?page=2']);
  });

  test("an action's -p path that the action does not read is an error with the closest read path; nothing is written", async () => {
    const server = await testServer((_, res) => json(res, 200, { id: 'c-1', name: 'X' }));
    const root = tempSolution({
      'functions/rest-update.platform': `provider: DATA_PROVIDER_REST
method: PATCH
url: ${server.url}/customers/{id}
parameters:
  id: { location: path, type: string, required: true }
  name: { location: body, type: string }
`,
      'actions/rename.platform': `type: action.execute-entity
options:
  provider: DATA_PROVIDER_REST
  entity: customers
  method: save
  function: rest-update
  data:
    id: =@ctx.current.item.id
    name: =@ctx.components.name.state.value
  parameters:
    id: =@ctx.record.id
    name: =@ctx.record.name
`,
    });
    const typo = await runCli(
      ['action', 'rename', '-p', 'current.item.id=c-1', '-p', 'components.name.state.valu=X'],
      { cwd: root },
    );
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      "restfn: error USAGE: -p components.name.state.valu: action 'rename' reads nothing there (did you mean 'components.name.state.value'?), so the value would be lost; it reads 'current.item.id', 'components.name.state.value'\nrestfn: run 'restfn action --help' for usage\n",
    );
    expect(server.requests).toHaveLength(0);
    // A path inside what the action reads, or around it, is fine.
    const ok = await runCli(
      ['action', 'rename', '-p', 'current.item.id=c-1', '-p', 'components.name.state.value=X'],
      { cwd: root },
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([{ name: 'X' }]);
  });

  test('a datasource naming a missing function blocks only itself; the others sync', async () => {
    const server = await testServer((_, res) => json(res, 200, [{ id: 'g1' }]));
    const root = tempSolution({
      'functions/rest-get-good.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${server.url}/good\n`,
      // An unrelated broken function blocks nothing it is not part of.
      'functions/rest-unused.platform': 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ftp://x/y\n',
      'datasources/good.platform': datasource('good', 'rest-get-good'),
      'datasources/broken.platform': datasource('other', 'rest-get-goood'),
      'datasources/uses-unused.platform': datasource('unused', 'rest-unused'),
    });
    const all = await runCli(['sync'], { cwd: root });
    expect(all.code).toBe(3);
    expect(all.stdout).toMatch(/^good: good <- rest-get-good: 1 page, 1 record \(/);
    expect(all.stderr).toContain(
      "datasources/broken.platform:6:17: error UNKNOWN_FUNCTION: function 'rest-get-goood' does not exist in this solution",
    );
    expect(all.stderr).toContain('restfn: broken: not synced: 1 error above');
    expect(all.stderr).toContain('functions/rest-unused.platform:3:6: error URL_INVALID');
    expect(all.stderr).toContain('restfn: uses-unused: not synced: 1 error above');
    expect(all.stderr).toContain(
      "restfn: error INVALID_DEFINITION: 'broken', 'uses-unused' not synced because of the errors above (the others were)",
    );
    expect(JSON.parse((await runCli(['query', 'SELECT id FROM [good]'], { cwd: root })).stdout)).toEqual([
      { id: 'g1' },
    ]);
    const one = await runCli(['sync', 'good'], { cwd: root });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).not.toContain('error');
    // validate still reports every finding of the solution.
    const v = await runCli(['validate', '--format', 'json'], { cwd: root });
    expect(JSON.parse(v.stdout).errors).toBe(2);
  });

  test('credentials list and login agree: a client-credentials credential needs no login', async () => {
    const root = tempSolution({ 'solution.yaml': 'name: c\n' });
    const env = { RESTFN_CREDENTIALS_KEY: Buffer.alloc(32, 5).toString('base64') };
    const set = (key: string, extra: string[]) =>
      runCli(
        [
          'credentials',
          'set',
          key,
          '--kind',
          'oauth',
          '--token-url',
          'http://127.0.0.1:9/token',
          '--client-id',
          'c',
          ...extra,
        ],
        {
          cwd: root,
          env,
          input: 'client-secret',
        },
      );
    expect((await set('machine', ['--grant', 'client_credentials'])).code).toBe(0);
    expect((await set('person', ['--authorize-url', 'http://127.0.0.1:9/authorize'])).code).toBe(0);
    const list = await runCli(['credentials', 'list'], { cwd: root, env });
    expect(list.stdout).toBe(
      'KEY      KIND   STATE\nmachine  oauth  client credentials: no login needed\nperson   oauth  no token: restfn login\n',
    );
    const login = await runCli(['login', 'machine'], { cwd: root, env });
    expect(login.code).toBe(2);
    expect(login.stderr).toMatch(
      /^restfn: error LOGIN_NOT_NEEDED: credential 'machine' uses the client_credentials grant/,
    );
  });

  test('what list says for each OAuth state', () => {
    expect(oauthState('client_credentials', false)).toBe('client credentials: no login needed');
    expect(oauthState('client_credentials', true)).toBe('client credentials: token cached');
    expect(oauthState('authorization_code', true)).toBe('logged in');
    expect(oauthState('authorization_code', false)).toBe('no token: restfn login');
    expect(oauthState(undefined, false)).toBe('no token');
  });
});
