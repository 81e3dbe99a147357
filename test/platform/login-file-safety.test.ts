import { lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startPlatformProcess } from '../helpers/platform.js';

// platforms.json (issue 38's logins): a link planted where the file goes is replaced, never
// written through, and the token shows in no output.

describe('restfn login: the logins file', () => {
  it('a symlink at platforms.json is replaced by a 0600 file; the file it pointed to is untouched', async () => {
    const platform = await startPlatformProcess();
    const config = mkdtempSync(join(tmpdir(), 'restfn-xdg-'));
    const folder = join(config, 'restfn');
    mkdirSync(folder, { mode: 0o700 });
    const victim = join(config, 'victim.txt');
    writeFileSync(victim, 'not yours\n', { mode: 0o644 });
    symlinkSync(victim, join(folder, 'platforms.json'));
    // The link's target is not restfn's JSON: reading it is refused before anything is written.
    const env = { XDG_CONFIG_HOME: config, RESTFN_SERVER: '', RESTFN_TOKEN: '' };
    const refused = await runCli(['login', '--server', platform.url, '--with-token'], {
      env,
      input: `${platform.adminToken}\n`,
    });
    expect(refused.stderr).toContain('LOGINS_INVALID');
    expect(readFileSync(victim, 'utf8')).toBe('not yours\n');
    // A link to a file that is the logins' JSON: read, then replaced by a file of its own.
    writeFileSync(victim, '{"platforms":{}}\n');
    const login = await runCli(['login', '--server', platform.url, '--with-token'], {
      env,
      input: `${platform.adminToken}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const file = join(folder, 'platforms.json');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(victim, 'utf8')).toBe('{"platforms":{}}\n');
    expect(login.stdout + login.stderr).not.toContain(platform.adminToken);
  });
});

describe('restfn login: a token as an argument', () => {
  it('is refused, saying to pipe it, without repeating it or asking for a password', async () => {
    const config = mkdtempSync(join(tmpdir(), 'restfn-xdg-'));
    const token = 'rfn_argv_token_review_91c2';
    const given = await runCli(
      ['login', '--server', 'http://127.0.0.1:9', '--user', 'bob', '--token', token],
      {
        env: { XDG_CONFIG_HOME: config, RESTFN_SERVER: '', RESTFN_TOKEN: '' },
        input: 'a-password-1\n',
      },
    );
    expect(given.code).toBe(2);
    expect(given.stderr).toContain('--with-token < token.txt');
    expect(given.stderr).not.toContain(token);
    expect(given.stderr).not.toContain('SERVER_UNREACHABLE');
  });
});
