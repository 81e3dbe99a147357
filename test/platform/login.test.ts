import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { encodings } from '../helpers/encodings.js';
import { startPlatformProcess } from '../helpers/platform.js';

const PASSWORD = 'correct-horse-battery-9';

/** Every file under `folder`, read whole. */
function filesUnder(folder: string): string {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('restfn login --server / logout', () => {
  it('signs in with a password or a piped token, keeps the token 0600 per server, and is the default until logout', async () => {
    const platform = await startPlatformProcess();
    const config = mkdtempSync(join(tmpdir(), 'restfn-xdg-'));
    // No RESTFN_SERVER/RESTFN_TOKEN from the outer shell: only the stored login.
    const env = { XDG_CONFIG_HOME: config, RESTFN_SERVER: '', RESTFN_TOKEN: '' };
    const asAdmin = { RESTFN_SERVER: platform.url, RESTFN_TOKEN: platform.adminToken };
    const added = await runCli(['users', 'add', 'alice', '--role', 'author', '--with-password'], {
      env: asAdmin,
      input: `${PASSWORD}\n`,
    });
    expect(added.code).toBe(0);

    // Without a server: refused, saying how to sign in.
    const none = await runCli(['users', 'list'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('restfn login --server URL');

    // A wrong password: the platform's code, nothing stored.
    const wrong = await runCli(['login', '--server', platform.url, '--user', 'alice'], {
      env,
      input: 'not-the-password-1\n',
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('SIGN_IN_FAILED');
    expect(readdirSync(config)).toEqual([]);

    const login = await runCli(['login', '--server', platform.url, '--user', 'alice'], {
      env,
      input: `${PASSWORD}\n`,
    });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`logged in to ${platform.url} as 'alice' (author)`);
    const folder = join(config, 'restfn');
    const file = join(folder, 'platforms.json');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.default).toBe(platform.url);
    const firstToken: string = stored.platforms[platform.url].token;
    expect(firstToken).toMatch(/^rfn_/);
    // The password is in no file; the token in no output.
    for (const secret of encodings(PASSWORD)) expect(filesUnder(config)).not.toContain(secret);
    for (const secret of encodings(firstToken)) expect(login.stdout + login.stderr).not.toContain(secret);
    // The sign-in's console session was ended: login left only the token.
    const audit = await platform.api('GET', '/api/v1/audit', { token: platform.adminToken });
    expect(JSON.stringify(audit.body)).toContain('token.create');

    // Commands without --server use the login: `tokens list alice` as alice.
    const tokens = await runCli(['tokens', 'list', 'alice', '--format', 'json'], { env });
    expect(tokens.code).toBe(0);
    expect(JSON.parse(tokens.stdout)).toMatchObject([{ name: expect.stringMatching(/^restfn login on /) }]);
    // RESTFN_TOKEN still wins: the admin's token lists users, which alice's may not.
    const users = await runCli(['users', 'list'], { env: { ...env, RESTFN_TOKEN: platform.adminToken } });
    expect(users.code).toBe(0);
    const asAlice = await runCli(['users', 'list'], { env });
    expect(asAlice.stderr).toContain('FORBIDDEN');

    // Logging in again replaces the login; the token the first one made is revoked.
    const relogin = await runCli(['login', '--server', platform.url, '--user', 'alice'], {
      env,
      input: `${PASSWORD}\n`,
    });
    expect(relogin.code).toBe(0);
    expect((await platform.api('GET', '/api/v1/session', { token: firstToken })).status).toBe(401);
    const token: string = JSON.parse(readFileSync(file, 'utf8')).platforms[platform.url].token;
    expect(token).not.toBe(firstToken);

    const state = await runCli(['login', '--status'], { env });
    expect(state.code).toBe(0);
    expect(state.stdout).toBe(`${platform.url}: logged in as 'alice' (author) (default)\n`);
    for (const secret of encodings(token)) expect(state.stdout + state.stderr).not.toContain(secret);

    // Nor in the platform's log.
    for (const secret of [...encodings(PASSWORD), ...encodings(token), ...encodings(firstToken)])
      expect(platform.output()).not.toContain(secret);

    // Logout revokes the token login made, and forgets it.
    const out = await runCli(['logout'], { env });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain(`logged out of ${platform.url} (its token revoked)`);
    expect((await platform.api('GET', '/api/v1/session', { token })).status).toBe(401);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ platforms: {} });
    const after = await runCli(['users', 'list'], { env });
    expect(after.stderr).toContain('which platform?');
  });

  it('--with-token checks a piped token and keeps it; logout forgets it without revoking it', async () => {
    const platform = await startPlatformProcess();
    const config = mkdtempSync(join(tmpdir(), 'restfn-xdg-'));
    const env = { XDG_CONFIG_HOME: config, RESTFN_SERVER: '', RESTFN_TOKEN: '' };
    const bad = await runCli(['login', '--server', platform.url, '--with-token'], {
      env,
      input: 'rfn_not-a-real-token\n',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('AUTH_REQUIRED');
    expect(readdirSync(config)).toEqual([]);

    const ok = await runCli(['login', '--server', `${platform.url}/`, '--with-token'], {
      env,
      input: `${platform.adminToken}\n`,
    });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain("as 'admin' (admin)");
    for (const secret of encodings(platform.adminToken)) expect(ok.stdout + ok.stderr).not.toContain(secret);
    const users = await runCli(['users', 'list', '--format', 'json'], { env });
    expect(users.code).toBe(0);
    expect(JSON.parse(users.stdout)).toMatchObject([{ name: 'admin' }]);

    // Given KEY, `login` keeps its meaning: an OAuth credential's login, which refuses the platform flags.
    const mixed = await runCli(['login', 'api-key', '--with-token'], { env });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('leave out KEY');

    const out = await runCli(['logout', '--server', platform.url], { env });
    expect(out.code).toBe(0);
    expect(out.stderr).not.toContain('revoked');
    expect((await platform.api('GET', '/api/v1/session', { token: platform.adminToken })).status).toBe(200);
    const again = await runCli(['logout'], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('not logged in to any platform');
  });

  it('on a terminal (script(1)) it asks for the user name, then the password without echoing it', async () => {
    const platform = await startPlatformProcess();
    await runCli(['users', 'add', 'alice', '--role', 'user', '--with-password'], {
      env: { RESTFN_SERVER: platform.url, RESTFN_TOKEN: platform.adminToken },
      input: `${PASSWORD}\n`,
    });
    const config = mkdtempSync(join(tmpdir(), 'restfn-xdg-'));
    const child = spawn(
      'script',
      ['-qec', `${process.execPath} ${CLI} login --server ${platform.url}`, '/dev/null'],
      {
        env: {
          ...process.env,
          NO_COLOR: '1',
          TERM: 'xterm',
          XDG_CONFIG_HOME: config,
          RESTFN_SERVER: '',
          RESTFN_TOKEN: '',
        },
      },
    );
    let out = '';
    const asked = (prompt: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (out.includes(prompt)) {
            child.stdout.off('data', check);
            resolve();
          }
        };
        child.stdout.on('data', check);
        check();
      });
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    await asked('user name: ');
    child.stdin.write('alice\r');
    await asked('password for alice: ');
    child.stdin.write(`${PASSWORD}\r`);
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out).toContain(`logged in to ${platform.url} as 'alice' (user)`);
    expect(out).not.toContain(PASSWORD);
  }, 60_000);

  it('a broken logins file is a coded error that says how to fix it', async () => {
    const config = mkdtempSync(join(tmpdir(), 'restfn-xdg-'));
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(config, 'restfn'));
    writeFileSync(join(config, 'restfn', 'platforms.json'), '{not json');
    const r = await runCli(['users', 'list'], {
      env: { XDG_CONFIG_HOME: config, RESTFN_SERVER: '', RESTFN_TOKEN: '' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('LOGINS_INVALID');
    expect(r.stderr).toContain('restfn login --server URL');
  });
});
