import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';
import { startPlatformProcess } from '../helpers/platform.js';

describe('restfn targets: private targets changed while the platform runs', () => {
  it('an admin adds and removes a target through the API (audited, validated), seen at once and after a restart', async () => {
    const service = await testServer((req, res) => json(res, 200, { path: req.url }));
    const port = new URL(service.url).port;
    const root = mkdtempSync(join(tmpdir(), 'restfn-targets-'));
    let platform = await startPlatformProcess({ root });
    const admin = platform.adminToken;
    await platform.api('POST', '/api/v1/users', {
      token: admin,
      body: { name: 'alice', role: 'author', solutions: ['crm'] },
    });
    const alice = (await platform.api('POST', '/api/v1/users/alice/tokens', { token: admin, body: {} })).body
      .token as string;
    const published = await platform.api('PUT', '/api/v1/solutions/crm', {
      token: alice,
      body: {
        files: {
          'functions/rest-get-orders.platform': `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${service.url}/orders\n`,
        },
      },
    });
    expect(published.status).toBe(201);
    const execute = () =>
      platform.api('POST', '/api/v1/solutions/crm/functions/rest-get-orders/execute', {
        token: alice,
        body: {},
      });
    const refused = await execute();
    expect(refused.body).toMatchObject({ code: 'TARGET_REFUSED' });
    expect(refused.body.message).toContain('restfn targets add SOLUTION HOST[:PORT]');

    const asAdmin = { RESTFN_SERVER: platform.url, RESTFN_TOKEN: admin };
    // An author may not; a host that is no host is refused in plain words.
    const forbidden = await runCli(['targets', 'add', 'crm', `127.0.0.1:${port}`], {
      env: { RESTFN_SERVER: platform.url, RESTFN_TOKEN: alice },
    });
    expect(forbidden.code).toBe(2);
    expect(forbidden.stderr).toContain('FORBIDDEN');
    const bad = await runCli(['targets', 'add', 'crm', `http://127.0.0.1:${port}/x`], { env: asAdmin });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('REQUEST_INVALID: host:');
    expect(bad.stderr).toContain('without a scheme or a path');

    const added = await runCli(['targets', 'add', 'crm', `127.0.0.1:${port}`], { env: asAdmin });
    expect(added.code).toBe(0);
    expect(added.stderr).toContain(`solution 'crm' may call 127.0.0.1:${port}`);
    // No restart: the next execution may call it.
    expect((await execute()).body).toMatchObject({ status: 'ok', output: { path: '/orders' } });

    const listed = await runCli(['targets', 'list', '--format', 'json'], { env: asAdmin });
    expect(JSON.parse(listed.stdout)).toEqual([{ solution: 'crm', host: `127.0.0.1:${port}`, from: 'api' }]);
    const audit = await platform.api('GET', '/api/v1/audit?action=target.add', { token: admin });
    expect(audit.body.entries).toMatchObject([
      { action: 'target.add', actor: 'admin', target: `crm=127.0.0.1:${port}`, outcome: 'ok' },
    ]);

    // Kept in the store: a restart on the same data still allows it.
    const other = (await platform.api('POST', '/api/v1/users/admin/tokens', { token: admin, body: {} })).body
      .token as string;
    await platform.stop();
    platform = await startPlatformProcess({ root });
    expect((await execute()).body).toMatchObject({ status: 'ok' });

    const removed = await runCli(['targets', 'remove', 'crm', `127.0.0.1:${port}`], {
      env: { RESTFN_SERVER: platform.url, RESTFN_TOKEN: other },
    });
    expect(removed.code).toBe(0);
    expect((await execute()).body).toMatchObject({ code: 'TARGET_REFUSED' });
    const again = await runCli(['targets', 'remove', 'crm', `127.0.0.1:${port}`], {
      env: { RESTFN_SERVER: platform.url, RESTFN_TOKEN: other },
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('TARGET_NOT_FOUND');
  });

  it("--allow-target is held to the same rule, and its entries are listed as the flag's", async () => {
    const bad = await runCli(['serve', '--port', '0', '--allow-target', 'crm=http://10.0.0.5/'], {
      env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'restfn-xdg-')) },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--allow-target crm=http://10.0.0.5/:');
    const platform = await startPlatformProcess({ args: ['--allow-target', 'crm=Api.Internal:8443'] });
    const listed = await platform.api('GET', '/api/v1/targets', { token: platform.adminToken });
    expect(listed.body).toEqual({
      allowPrivateTargets: false,
      targets: [{ solution: 'crm', host: 'api.internal:8443', from: 'flag' }],
    });
    const removed = await platform.api('DELETE', '/api/v1/targets/crm/api.internal%3A8443', {
      token: platform.adminToken,
    });
    expect(removed.body).toMatchObject({ code: 'TARGET_NOT_FOUND' });
    expect(removed.body.message).toContain('--allow-target flag');
  });
});
