import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { encodings } from '../helpers/encodings.js';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';
import { tempSolution } from '../helpers/temp-solution.js';

const SECRET = 'pk-live-3Vb8nQ2xR7mL4tZ9wK6c';

describe('the CLI against the platform', () => {
  it('users add, tokens create, publish, credentials set/list/delete --server; errors keep their codes', async () => {
    const platform = await startPlatformProcess({ args: ['--allow-private-targets'] });
    const service = await testServer((req, res) =>
      json(res, req.headers['x-api-key'] === SECRET ? 200 : 401, { ok: req.headers['x-api-key'] === SECRET }),
    );
    const root = tempSolution({
      'solution.yaml': 'name: crm\n',
      'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST
method: GET
url: ${service.url}/orders
parameters:
  x-api-key: { location: header, type: secret, value: api-key }
`,
    });
    const asAdmin = { RESTFN_SERVER: platform.url, RESTFN_TOKEN: platform.adminToken };

    const added = await runCli(
      ['users', 'add', 'alice', '--role', 'author', '--solution', 'crm', '--format', 'json'],
      { env: asAdmin },
    );
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ name: 'alice', role: 'author', solutions: ['crm'] });
    const duplicate = await runCli(['users', 'add', 'alice', '--role', 'user'], { env: asAdmin });
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toContain('restfn: error USER_EXISTS');

    const made = await runCli([
      'tokens',
      'create',
      'alice',
      '--name',
      'laptop',
      '--server',
      platform.url,
      '--token',
      platform.adminToken,
    ]);
    expect(made.code).toBe(0);
    const token = made.stdout.trim();
    expect(token).toMatch(/^rfn_[A-Za-z0-9_-]{43}$/);
    expect(made.stderr).toContain('it is shown this once');
    const asAlice = { RESTFN_SERVER: platform.url, RESTFN_TOKEN: token };

    const published = await runCli(['publish', '--solution', root, '--format', 'json'], { env: asAlice });
    expect(published.code).toBe(0);
    expect(JSON.parse(published.stdout)).toMatchObject({
      solution: 'crm',
      version: 1,
      unchanged: false,
      files: 2,
    });
    expect(published.stderr).toContain(`restfn: published solution 'crm' as version 1 on ${platform.url}`);

    // An error found locally: nothing is uploaded, exit 3 with the finding.
    writeFileSync(
      join(root, 'functions', 'rest-get-broken.platform'),
      'provider: DATA_PROVIDER_REST\nmethod: FETCH\nurl: http://x\n',
    );
    const invalid = await runCli(['publish', '--solution', root], { env: asAlice });
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toMatch(/functions\/rest-get-broken\.platform:2:\d+: error /);
    expect((await platform.api('GET', '/api/v1/solutions/crm', { token })).body.version).toBe(1);

    const set = await runCli(
      ['credentials', 'set', 'api-key', '--kind', 'secret', '--server', '--solution', root],
      {
        env: asAlice,
        input: `${SECRET}\n`,
      },
    );
    expect(set.code).toBe(0);
    expect(set.stderr).toContain(`stored secret credential 'api-key' for solution 'crm' on ${platform.url}`);
    const listed = await runCli(['credentials', 'list', '--server', '--name', 'crm'], { env: asAlice });
    expect(listed.stdout).toBe('KEY      KIND\napi-key  secret\n');
    const ran = await platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-orders/execute', {
      token,
      body: {},
    });
    expect(ran.body).toMatchObject({ status: 'ok', output: { ok: true } });

    // Alice is an author: managing users is not hers (exit 2, the platform's code).
    const forbidden = await runCli(['users', 'list'], { env: asAlice });
    expect(forbidden.code).toBe(2);
    expect(forbidden.stderr).toContain('restfn: error FORBIDDEN: the author role may not manage users');
    const deleted = await runCli(['credentials', 'delete', 'api-key', '--server', '--name', 'crm'], {
      env: asAlice,
    });
    expect(deleted.code).toBe(0);
    const gone = await runCli(['credentials', 'delete', 'api-key', '--server', '--name', 'crm'], {
      env: asAlice,
    });
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('CREDENTIAL_NOT_FOUND');

    // Users change and go; the last admin stays one.
    const demoted = await runCli(
      [
        'users',
        'set',
        'alice',
        '--role',
        'user',
        '--solution',
        'crm',
        '--solution',
        'hr',
        '--format',
        'json',
      ],
      {
        env: asAdmin,
      },
    );
    expect(JSON.parse(demoted.stdout)).toMatchObject({
      name: 'alice',
      role: 'user',
      solutions: ['crm', 'hr'],
    });
    const lastAdmin = await runCli(['users', 'set', 'admin', '--role', 'author'], { env: asAdmin });
    expect(lastAdmin.code).toBe(2);
    expect(lastAdmin.stderr).toContain("restfn: error LAST_ADMIN: 'admin' is the last admin");
    expect((await runCli(['users', 'remove', 'alice'], { env: asAdmin })).code).toBe(0);
    const removed = await runCli(['users', 'list'], { env: asAlice });
    expect(removed.code).toBe(2);
    expect(removed.stderr).toContain('AUTH_REQUIRED');

    const wrongToken = await runCli(['users', 'list', '--server', platform.url, '--token', 'rfn_nope']);
    expect(wrongToken.code).toBe(2);
    expect(wrongToken.stderr).toContain('restfn: error AUTH_REQUIRED');
    const outputs = [added, made, published, set, listed, forbidden, deleted]
      .map((r) => r.stdout + r.stderr)
      .join('\n');
    for (const form of encodings(SECRET)) expect(outputs + platform.output()).not.toContain(form);

    await platform.stop();
    const unreachable = await runCli(['users', 'list', '--server', platform.url, '--token', token]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(
      `restfn: error SERVER_UNREACHABLE: the platform at ${platform.url} could not be reached`,
    );
  });
  it('publish says published vN or unchanged in words, and users set says what changed (never the password)', async () => {
    const platform = await startPlatformProcess();
    const asAdmin = { RESTFN_SERVER: platform.url, RESTFN_TOKEN: platform.adminToken };
    const root = tempSolution({
      'solution.yaml': 'name: crm\n',
      'functions/rest-get-orders.platform':
        'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://api.example.com/orders\n',
    });
    const first = await runCli(['publish', '--solution', root], { env: asAdmin });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^SOLUTION\s+VERSION\s+RESULT\s+FILES\ncrm\s+1\s+published v1\s+2\n$/);
    const again = await runCli(['publish', '--solution', root], { env: asAdmin });
    expect(again.stdout).toMatch(/\ncrm\s+1\s+unchanged: still v1\s+2\n$/);
    expect(again.stdout).not.toMatch(/true|false/);
    // The JSON keeps its fields.
    const json = await runCli(['publish', '--solution', root, '--format', 'json'], { env: asAdmin });
    expect(JSON.parse(json.stdout)).toEqual({ solution: 'crm', version: 1, unchanged: true, files: 2 });

    const password = 'correct-horse-battery-9';
    const added = await runCli(['users', 'add', 'alice', '--role', 'author', '--with-password'], {
      env: asAdmin,
      input: `${password}\n`,
    });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain("restfn: added user 'alice' with a console password\n");
    const set = await runCli(['users', 'set', 'alice', '--with-password'], {
      env: asAdmin,
      input: 'another-horse-battery-7\n',
    });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain("restfn: updated user 'alice': console password set\n");
    expect(set.stderr + set.stdout).not.toContain('another-horse');
    const role = await runCli(['users', 'set', 'alice', '--role', 'user', '--solution', 'crm'], {
      env: asAdmin,
    });
    expect(role.stderr).toContain("restfn: updated user 'alice': role user, solutions crm\n");
    await platform.stop();
  });

  it("restfn publish prints the server's findings the local run did not: a capped setting at its place, once", async () => {
    const platform = await startPlatformProcess({ args: ['--max-script-ms', '100'] });
    const root = tempSolution({
      'solution.yaml': 'name: capped\nsettings:\n  scripts:\n    timeoutMs: 5000\n',
      // A warning both runs find (the credential's address from a caller): printed once.
      'functions/rest-echo.platform': `provider: DATA_PROVIDER_REST
method: GET
url: '{base}/echo'
parameters:
  base: { location: path, type: string, required: true }
  x-api-key: { location: header, type: secret, value: api-key }
`,
    });
    const asAdmin = { RESTFN_SERVER: platform.url, RESTFN_TOKEN: platform.adminToken };
    for (const [expected, version] of [
      ['published', 1],
      ['unchanged', 1],
    ] as const) {
      const published = await runCli(['publish'], { env: asAdmin, cwd: root });
      expect(published.code, published.stderr).toBe(0);
      expect(published.stderr).toContain(expected === 'published' ? `as version ${version}` : 'is unchanged');
      const lines = published.stderr.split('\n');
      expect(lines.filter((l) => l.includes('SETTING_CAPPED'))).toEqual([
        "solution.yaml:4:16: warning SETTING_CAPPED: scripts.timeoutMs is 5000, above this platform's ceiling of 100: 100 applies (the operator sets it with restfn serve --max-script-ms)",
      ]);
      expect(lines.filter((l) => l.includes('CREDENTIAL_URL_FROM_CALLER'))).toEqual([
        expect.stringMatching(/^functions\/rest-echo\.platform:3:6: warning CREDENTIAL_URL_FROM_CALLER: /),
      ]);
    }
  });
});
