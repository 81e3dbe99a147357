import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CREDENTIAL_KEYS_MAX_AGE_MS, CredentialKeys } from '../../src/cli/lsp/credential-keys.js';
import { json, testServer } from '../helpers/http-server.js';
import { tempSolution } from '../helpers/temp-solution.js';

// `restfn lsp`'s credential keys: read when completion wants them, again once stale (an injected
// clock), from the platform only when RESTFN_SERVER says which.

describe('credential keys for completion', () => {
  test('the platform is asked once, then again only when the keys are older than the max age', async () => {
    const platform = await testServer((_req, res) =>
      json(res, 200, { credentials: [{ key: 'crm-api-key', kind: 'secret', fields: {}, hasToken: false }] }),
    );
    const root = tempSolution({ 'solution.yaml': 'name: crm\n' });
    let now = 1_000;
    const env = { RESTFN_SERVER: platform.url, RESTFN_TOKEN: 'tok-1', XDG_CONFIG_HOME: join(root, 'config') };
    const keys = new CredentialKeys(
      root,
      () => 'crm',
      env,
      () => now,
    );
    expect(keys.stale()).toBe(true);
    await keys.refresh();
    expect(keys.current()).toEqual([{ key: 'crm-api-key', kind: 'secret', origin: 'platform' }]);
    expect(platform.requests.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/api/v1/solutions/crm/credentials', 'Bearer tok-1'],
    ]);
    now += CREDENTIAL_KEYS_MAX_AGE_MS - 1;
    expect(keys.stale()).toBe(false);
    now += 1;
    expect(keys.stale()).toBe(true);
    // `current` notes that completion wanted them: the server refreshes only then.
    expect(keys.takeAsked()).toBe(true);
    expect(keys.takeAsked()).toBe(false);
  });

  test('a stored login alone is not asked: the editor talks to a platform only with RESTFN_SERVER', async () => {
    const platform = await testServer((_req, res) =>
      json(res, 200, { credentials: [{ key: 'k', kind: 'secret' }] }),
    );
    const root = tempSolution({ 'solution.yaml': 'name: crm\n' });
    const config = join(root, 'config');
    mkdirSync(join(config, 'restfn'), { recursive: true });
    writeFileSync(
      join(config, 'restfn', 'platforms.json'),
      JSON.stringify({
        default: platform.url,
        platforms: {
          [platform.url]: { user: 'alice', role: 'author', token: 'stored', at: '2026-11-28T00:00:00Z' },
        },
      }),
    );
    const withoutServer = new CredentialKeys(root, () => 'crm', { XDG_CONFIG_HOME: config });
    await withoutServer.refresh();
    expect(withoutServer.current()).toEqual([]);
    expect(platform.requests).toEqual([]);
    // With RESTFN_SERVER, the stored login's token is the one sent.
    const withServer = new CredentialKeys(root, () => 'crm', {
      XDG_CONFIG_HOME: config,
      RESTFN_SERVER: platform.url,
    });
    await withServer.refresh();
    expect(withServer.current().map((k) => k.key)).toEqual(['k']);
    expect(platform.requests.map((r) => r.headers.authorization)).toEqual(['Bearer stored']);
  });
});
