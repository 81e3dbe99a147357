import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startPlatformProcess } from '../helpers/platform.js';

describe('the first admin', () => {
  it('is not made by a start that fails to listen: the next start still prints its token', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => busy.close(() => resolve())));
    const port = String((busy.address() as AddressInfo).port);
    const root = mkdtempSync(join(tmpdir(), 'restfn-bootstrap-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));

    const failed = await runCli(
      [
        'serve',
        '--port',
        port,
        '--data',
        join(root, 'data'),
        '--master-key-file',
        join(root, 'keys', 'master.key'),
      ],
      { env: { XDG_CONFIG_HOME: join(root, 'config') } },
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('restfn: error LISTEN_FAILED: port');
    expect(failed.stdout).not.toContain('rfn_');

    const platform = await startPlatformProcess({ root });
    expect(platform.adminToken).toMatch(/^rfn_/);
    const me = await platform.api('GET', '/api/v1/me', { token: platform.adminToken });
    expect(me.body).toMatchObject({ name: 'admin', role: 'admin' });
  });
});
