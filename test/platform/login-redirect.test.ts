import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, testServer } from '../helpers/http-server.js';

// A password, a token or a secret typed into the CLI goes to the platform named, and nowhere else:
// an answer that redirects (a proxy, a man in the middle on plain http, a misconfigured platform)
// is not followed, whatever its status (a 307 or 308 would send the body again to the new address).

const PASSWORD = 'correct-horse-battery-9';
const SECRET = 'sk_live_review_4f9a1c';

describe('the CLI does not follow a platform redirect with a password, token or secret', () => {
  it('login --server: the password is sent to the platform named only, and the redirect is said', async () => {
    const elsewhere = await testServer((_req, res) =>
      json(res, 200, { csrfToken: 'x', user: { name: 'bob' } }),
    );
    const platform = await testServer((req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}${req.url}` });
      res.end();
    });
    const config = mkdtempSync(join(tmpdir(), 'restfn-xdg-'));
    const env = { XDG_CONFIG_HOME: config, RESTFN_SERVER: '', RESTFN_TOKEN: '' };
    const login = await runCli(['login', '--server', platform.url, '--user', 'bob'], {
      env,
      input: `${PASSWORD}\n`,
    });
    expect(elsewhere.requests.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([]);
    expect(platform.requests).toHaveLength(1);
    expect(login.code).not.toBe(0);
    expect(login.stderr).toContain('SERVER_ERROR');
    expect(login.stderr).toContain(`redirects to ${elsewhere.url}/api/v1/session`);
    expect(login.stderr).not.toContain(PASSWORD);
    expect(readdirSync(config)).toEqual([]);
  });

  it('an API token client (credentials set --server): the secret is not sent on to another address', async () => {
    const elsewhere = await testServer((_req, res) => json(res, 200, {}));
    const platform = await testServer((req, res) => {
      res.writeHead(308, { location: `${elsewhere.url}${req.url}` });
      res.end();
    });
    const set = await runCli(
      ['credentials', 'set', 'api-key', '--kind', 'secret', '--server', platform.url, '--name', 's'],
      {
        cwd: mkdtempSync(join(tmpdir(), 'restfn-cwd-')),
        env: { RESTFN_TOKEN: 'rfn_review_token', RESTFN_SERVER: '' },
        input: `${SECRET}\n`,
      },
    );
    expect(elsewhere.requests.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([]);
    expect(platform.requests).toHaveLength(1);
    expect(platform.requests[0]!.body).toContain(SECRET);
    expect(set.code).not.toBe(0);
    expect(set.stderr).toContain('SERVER_ERROR');
    expect(set.stderr).toContain(`redirects to ${elsewhere.url}/api/v1/solutions/s/credentials/api-key`);
    expect(set.stderr).not.toContain(SECRET);
  });
});
