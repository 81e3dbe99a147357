import { hostname } from 'node:os';
import {
  NO_REDIRECTS,
  PlatformAnswerError,
  PlatformClient,
  redirectRefused,
  SERVER_ENV,
  TOKEN_ENV,
} from '../../client/platform-client.js';
import { isErrorCode } from '../../errors/codes.js';
import { RestfnError, UsageError } from '../../errors/restfn-error.js';
import { status, warn } from '../output.js';
import {
  loginsFile,
  type PlatformLogin,
  platformKey,
  readLogins,
  withLogin,
  withoutLogin,
  writeLogins,
} from '../platform-logins.js';
import { readSecret } from '../read-secret.js';

// `restfn login --server URL`, `restfn logout`, `restfn login --status` (loaded when one runs).

export interface PlatformLoginOptions {
  server?: string | true;
  withToken?: boolean;
  user?: string;
  status?: boolean;
}

/** `restfn login [KEY]`: an OAuth credential's login with KEY, the platform's own sign-in without. */
export async function login(
  key: string | undefined,
  options: PlatformLoginOptions & { token?: string; name?: string; solution?: string },
): Promise<void> {
  if (key !== undefined) {
    if (options.withToken || options.user !== undefined || options.status)
      throw new UsageError('--with-token, --user and --status are for the platform login: leave out KEY');
    return (await import('./credentials-action.js')).logIn(key, options);
  }
  if (options.status) return loginStatus();
  // A token given as an argument is in the process list and the shell's history already; the
  // platform login never took it from there (it asked for a password instead): said, not ignored.
  if (options.token !== undefined)
    throw new UsageError(
      "--token is not read by the platform login (an argument shows in process listings and shell history): pipe the token instead, 'restfn login --server URL --with-token < token.txt'",
    );
  return platformLogin(options);
}

/** `--server URL`, or a bare `--server` with RESTFN_SERVER set: the platform to sign in to. */
function serverOf(options: { server?: string | true }, what: string): string {
  const url = typeof options.server === 'string' ? options.server : process.env[SERVER_ENV] || undefined;
  if (!url) throw new UsageError(`${what} which platform? pass --server URL`);
  return platformKey(url);
}

/**
 * Signs in to the platform and keeps an API token for it. Two ways, as gh has: `--with-token` reads
 * a token (from `restfn tokens create`) from standard input and checks it; otherwise the user's
 * name and console password sign in (`POST /api/v1/session`), and that session makes a token of its
 * own for this device, then ends. The platform has no browser or device-code flow for the CLI; a
 * password typed into the CLI goes only to the platform, as the console's sign-in does.
 */
export async function platformLogin(options: PlatformLoginOptions): Promise<void> {
  const server = serverOf(options, 'log in to');
  // Read first: a file that cannot be read fails before a token is made on the platform.
  const logins = readLogins();
  let login: PlatformLogin;
  if (options.withToken) {
    if (options.user) throw new UsageError('--with-token reads a token; --user is for a password sign-in');
    const token = (await readSecret('API token')).trim();
    const { user } = await new PlatformClient(server, token).request<{ user: SessionUser }>(
      'GET',
      '/api/v1/session',
    );
    login = { user: user.name, role: user.role, token, at: new Date().toISOString() };
  } else {
    login = await passwordLogin(server, options.user);
  }
  const replaced = logins.platforms[server];
  writeLogins(withLogin(logins, server, login));
  // A second login to the same platform replaces the first: the token the first made is revoked
  // (with itself, as its own user may), so logging in again leaves no live token behind.
  if (replaced?.tokenId && replaced.token !== login.token) await revokeQuietly(server, replaced);
  status(
    `logged in to ${server} as '${login.user}' (${login.role}); commands without --server use it now (token kept in ${loginsFile()})`,
  );
  if (process.env[SERVER_ENV] || process.env[TOKEN_ENV]) {
    warn(`${SERVER_ENV}/${TOKEN_ENV} are set in this shell: they still win over this login`);
  }
}

interface SessionUser {
  readonly name: string;
  readonly role: string;
}

/** A console sign-in that makes a token for this device, then signs the session out. */
async function passwordLogin(server: string, given: string | undefined): Promise<PlatformLogin> {
  if (!given && !process.stdin.isTTY) {
    throw new UsageError(
      "no terminal to ask for a user name: pipe a token with 'restfn login --server URL --with-token', or give --user NAME (the password is then read from standard input)",
    );
  }
  const name = given ?? (await ask('user name'));
  const password = await readSecret(`password for ${name}`);
  const signedIn = await call(server, 'POST', '/api/v1/session', { body: { name, password } });
  const cookie = signedIn.cookie;
  const csrf = (signedIn.answer as { csrfToken: string }).csrfToken;
  const user = (signedIn.answer as { user: SessionUser }).user;
  try {
    const made = await call(server, 'POST', `/api/v1/users/${encodeURIComponent(user.name)}/tokens`, {
      body: { name: `restfn login on ${hostname()}`.slice(0, 100) },
      cookie,
      csrf,
    });
    const { id, token } = made.answer as { id: string; token: string };
    return { user: user.name, role: user.role, token, tokenId: id, at: new Date().toISOString() };
  } finally {
    // The session was only the way to the token: ended, so no cookie lives on the platform for it.
    await call(server, 'DELETE', '/api/v1/session', { cookie, csrf }).catch(() => undefined);
  }
}

/**
 * The sign-in goes with the session cookie, which PlatformClient (a token's client) does not
 * carry: a plain request, its errors coded as PlatformClient codes them.
 */
async function call(
  server: string,
  method: string,
  path: string,
  options: { body?: unknown; cookie?: string; csrf?: string },
): Promise<{ answer: unknown; cookie: string }> {
  let res: Response;
  try {
    res = await fetch(`${server}${path}`, {
      ...NO_REDIRECTS,
      method,
      headers: {
        accept: 'application/json',
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...(options.csrf ? { 'x-csrf-token': options.csrf } : {}),
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new RestfnError(
      'SERVER_UNREACHABLE',
      `the platform at ${server} could not be reached${cause ? ` (${cause})` : ''}: is 'restfn serve' running there?`,
    );
  }
  const redirected = redirectRefused(server, `${server}${path}`, res);
  if (redirected) throw redirected;
  const text = await res.text();
  let answer: Record<string, unknown> = {};
  try {
    answer = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // Not the platform's JSON: said below.
  }
  if (!res.ok) {
    const code = isErrorCode(answer.code) ? answer.code : 'SERVER_ERROR';
    const message =
      typeof answer.message === 'string'
        ? answer.message
        : `the platform answered ${res.status} ${res.statusText}`;
    throw new PlatformAnswerError(code, message, res.status, answer);
  }
  const set = res.headers.getSetCookie().find((c) => c.startsWith('restfn_session='));
  return { answer, cookie: set ? set.split(';')[0]! : (options.cookie ?? '') };
}

/** One visible line from the terminal (a user name: not a secret). */
async function ask(prompt: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${prompt}: `)).trim();
    if (!answer) throw new UsageError(`${prompt}: nothing given`);
    return answer;
  } finally {
    rl.close();
  }
}

/**
 * `restfn logout [--server URL]`: forgets the platform's token (default: the default platform's).
 * A token login made is revoked on the platform too; one given with --with-token is the user's
 * own (a CI secret, another device's) and stays valid there.
 */
export async function platformLogout(options: { server?: string | true }): Promise<void> {
  const logins = readLogins();
  const server =
    typeof options.server === 'string' || process.env[SERVER_ENV]
      ? serverOf(options, 'log out of')
      : logins.default;
  const login = server ? logins.platforms[server] : undefined;
  if (!server || !login) {
    throw new UsageError(
      server
        ? `not logged in to ${server} ('restfn login --status' lists the logins)`
        : 'not logged in to any platform',
    );
  }
  if (login.tokenId) {
    try {
      await new PlatformClient(server, login.token).request(
        'DELETE',
        `/api/v1/users/${encodeURIComponent(login.user)}/tokens/${encodeURIComponent(login.tokenId)}`,
      );
    } catch (error) {
      // Forgotten here all the same: an unreachable platform must not keep a login on this device.
      if (!(error instanceof RestfnError)) throw error;
      if (error.code !== 'AUTH_REQUIRED')
        warn(
          `the token could not be revoked on ${server} (${error.code}): revoke it there with 'restfn tokens revoke'`,
        );
    }
  }
  const left = withoutLogin(logins, server);
  writeLogins(left);
  status(
    `logged out of ${server}${login.tokenId ? ' (its token revoked)' : ''}${left.default ? `; the default platform is now ${left.default}` : ''}`,
  );
}

/** Revokes a token login made, with itself; a failure (already revoked, unreachable) is left. */
async function revokeQuietly(server: string, login: PlatformLogin): Promise<void> {
  await new PlatformClient(server, login.token)
    .request(
      'DELETE',
      `/api/v1/users/${encodeURIComponent(login.user)}/tokens/${encodeURIComponent(login.tokenId!)}`,
    )
    .catch(() => undefined);
}

/** `restfn login --status`: each stored login, whether its token still works, and which is used. */
export async function loginStatus(): Promise<void> {
  const logins = readLogins();
  const servers = Object.keys(logins.platforms);
  if (servers.length === 0) status("not logged in to any platform ('restfn login --server URL')");
  for (const server of servers) {
    const login = logins.platforms[server]!;
    let state: string;
    try {
      const { user } = await new PlatformClient(server, login.token).request<{ user: SessionUser }>(
        'GET',
        '/api/v1/session',
      );
      state = `logged in as '${user.name}' (${user.role})`;
    } catch (error) {
      if (!(error instanceof RestfnError)) throw error;
      state =
        error.code === 'AUTH_REQUIRED'
          ? `the token of '${login.user}' is revoked or unknown: run 'restfn login --server ${server}'`
          : `'${login.user}', not checked (${error.code})`;
    }
    process.stdout.write(`${server}: ${state}${server === logins.default ? ' (default)' : ''}\n`);
  }
  const env = [SERVER_ENV, TOKEN_ENV].filter((name) => process.env[name]);
  if (env.length > 0)
    status(
      `${env.join(' and ')} ${env.length > 1 ? 'are' : 'is'} set: ${env.length > 1 ? 'they win' : 'it wins'} over these logins`,
    );
}
