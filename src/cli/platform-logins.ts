import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PlatformClient, platformAddress, SERVER_ENV, TOKEN_ENV } from '../client/platform-client.js';
import { RestfnError } from '../errors/restfn-error.js';
import { PRIVATE_FILE_MODE, privateFolder } from '../local/private-path.js';

/**
 * `restfn login --server URL` keeps one API token per platform in
 * `$XDG_CONFIG_HOME/restfn/platforms.json` (default `~/.config/restfn/`), as gh keeps hosts.yml:
 * the folder 0700, the file 0600, written whole (a temp file renamed over it) so a crash leaves the
 * old file or the new one. The last login's platform is the default for commands without --server;
 * --server/--token and RESTFN_SERVER/RESTFN_TOKEN always win.
 */

export interface PlatformLogin {
  /** The user the token is of, as the platform said at login. */
  readonly user: string;
  readonly role: string;
  readonly token: string;
  /** Set when login made the token (a password sign-in): logout revokes it. */
  readonly tokenId?: string;
  readonly at: string;
}

export interface PlatformLogins {
  /** The platform commands use without --server (the last login's). */
  readonly default?: string;
  readonly platforms: Readonly<Record<string, PlatformLogin>>;
}

export const LOGINS_FILE = 'platforms.json';

export function loginsFolder(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'restfn');
}

export function loginsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(loginsFolder(env), LOGINS_FILE);
}

/** A platform's address as logins key it: the URL's href without a trailing slash. */
export function platformKey(url: string): string {
  return platformAddress(url);
}

export function readLogins(env: NodeJS.ProcessEnv = process.env): PlatformLogins {
  const file = loginsFile(env);
  if (!existsSync(file)) return { platforms: {} };
  try {
    const read = JSON.parse(readFileSync(file, 'utf8')) as PlatformLogins;
    if (typeof read !== 'object' || read === null || typeof read.platforms !== 'object') throw new Error();
    return read;
  } catch {
    throw new RestfnError(
      'LOGINS_INVALID',
      `${file} is not restfn's list of logins (JSON): remove it and run 'restfn login --server URL' again`,
    );
  }
}

export function writeLogins(logins: PlatformLogins, env: NodeJS.ProcessEnv = process.env): void {
  const folder = loginsFolder(env);
  privateFolder(folder);
  const file = loginsFile(env);
  const temp = join(folder, `.${LOGINS_FILE}.${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(temp, `${JSON.stringify(logins, null, 2)}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The logins with `server`'s replaced by `login`, which becomes the default. */
export function withLogin(logins: PlatformLogins, server: string, login: PlatformLogin): PlatformLogins {
  return { default: server, platforms: { ...logins.platforms, [server]: login } };
}

/**
 * The logins without `server`'s. When it was the default, the most recent other login becomes the
 * default (none left: no default).
 */
export function withoutLogin(logins: PlatformLogins, server: string): PlatformLogins {
  const platforms = Object.fromEntries(Object.entries(logins.platforms).filter(([url]) => url !== server));
  if (logins.default !== undefined && logins.default !== server)
    return { default: logins.default, platforms };
  const latest = Object.entries(platforms).sort(([, a], [, b]) => b.at.localeCompare(a.at))[0]?.[0];
  return latest ? { default: latest, platforms } : { platforms };
}

/**
 * Which platform a command talks to, and with which token: --server URL, else RESTFN_SERVER, else
 * `fallbackServer` (a solution's `settings.platform.url`), else the last login's; --token, else
 * RESTFN_TOKEN, else the stored login of that platform. A pure decision on what it is given.
 */
export function platformTarget(
  given: { server?: string; token?: string; fallbackServer?: string },
  env: NodeJS.ProcessEnv,
  logins: PlatformLogins,
): { server?: string; token?: string } {
  const server = given.server ?? (env[SERVER_ENV] || undefined) ?? given.fallbackServer ?? logins.default;
  let stored: PlatformLogin | undefined;
  if (server) {
    try {
      stored = logins.platforms[platformKey(server)];
    } catch {
      // Not an address: PlatformClient says so with the server given.
    }
  }
  const token = given.token ?? (env[TOKEN_ENV] || undefined) ?? stored?.token;
  return { ...(server ? { server } : {}), ...(token ? { token } : {}) };
}

/** The platform an editor's setting names (VS Code's `restfn.server.url`), for `restfn lsp` only. */
export const EDITOR_SERVER_ENV = 'RESTFN_LSP_SERVER';

/**
 * The platform and token of `restfn lsp` (credential keys, Publish). A workspace can choose the
 * editor's setting, so with `RESTFN_LSP_SERVER` the token is only that platform's stored login, or
 * `RESTFN_TOKEN` when `RESTFN_SERVER` (the environment's own) is the same platform: the token of
 * one platform never goes to another. Without it: as the CLI, `RESTFN_SERVER`/`RESTFN_TOKEN`, else
 * the last login.
 */
export function editorPlatformTarget(
  env: NodeJS.ProcessEnv,
  logins: PlatformLogins,
): { server?: string; token?: string } {
  const server = env[EDITOR_SERVER_ENV] || undefined;
  if (!server) return platformTarget({}, env, logins);
  const keyOf = (url: string | undefined): string | undefined => {
    if (!url) return undefined;
    try {
      return platformKey(url);
    } catch {
      return undefined;
    }
  };
  const key = keyOf(server);
  if (key === undefined) return { server };
  const envToken = keyOf(env[SERVER_ENV]) === key ? env[TOKEN_ENV] || undefined : undefined;
  const token = envToken ?? logins.platforms[key]?.token;
  return { server, ...(token ? { token } : {}) };
}

/** The client of `--server [url]`/`--token` as every platform command takes them (a bare `--server`: the default). */
export function platformClient(
  options: { server?: string | true; token?: string },
  env: NodeJS.ProcessEnv = process.env,
): PlatformClient {
  const target = platformTarget(
    {
      ...(typeof options.server === 'string' ? { server: options.server } : {}),
      ...(options.token ? { token: options.token } : {}),
    },
    env,
    readLogins(env),
  );
  return PlatformClient.from(target, {});
}
