import { describe, expect, test } from 'vitest';
import { resolveIdPrefix } from '../../src/cli/id-prefix.js';
import { runCli } from '../helpers/cli.js';
import { startPlatformProcess } from '../helpers/platform.js';

describe('ids by a unique prefix, git style', () => {
  const ids = ['7f3a91c2-0000', '7f3b0004-1111', 'a0c4ee10-2222'];
  test('the whole id, a unique start, an ambiguous start (listing the candidates), no match (left for the lookup)', () => {
    expect(resolveIdPrefix('a0c4ee10-2222', ids, 'command')).toBe('a0c4ee10-2222');
    expect(resolveIdPrefix('a0c', ids, 'command')).toBe('a0c4ee10-2222');
    expect(resolveIdPrefix('7f3b', ids, 'command')).toBe('7f3b0004-1111');
    expect(() => resolveIdPrefix('7f3', ids, 'command')).toThrow(
      "'7f3' is the start of 2 command ids: 7f3a91c2-0000, 7f3b0004-1111; give more of it",
    );
    expect(resolveIdPrefix('zz', ids, 'command')).toBe('zz');
  });

  test('restfn tokens revoke USER PREFIX revokes the one token that id starts', async () => {
    const platform = await startPlatformProcess();
    const env = { RESTFN_SERVER: platform.url, RESTFN_TOKEN: platform.adminToken };
    const made = await platform.api('POST', '/api/v1/users/admin/tokens', {
      token: platform.adminToken,
      body: {},
    });
    const id = made.body.id as string;
    const revoked = await runCli(['tokens', 'revoke', 'admin', id.slice(0, 8)], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`revoked token ${id}`);
    expect((await platform.api('GET', '/api/v1/me', { token: made.body.token })).status).toBe(401);
  });
});
