import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { type CliResult, startCli } from './cli.js';

export interface PlatformProcess {
  readonly url: string;
  /** The first admin's token, as `restfn serve` printed it. */
  readonly adminToken: string;
  readonly dataDir: string;
  readonly keyFile: string;
  /** The server's process id (its memory: /proc/<pid>/status). */
  readonly pid: number;
  /** Everything the server wrote so far (stdout + stderr: its log lines). */
  output(): string;
  /** Calls the API; `token` goes in `Authorization: Bearer`. */
  api(method: string, path: string, options?: { token?: string; body?: unknown }): Promise<ApiAnswer>;
  /** Sends a signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

export interface ApiAnswer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers of every shape
  readonly body: any;
  readonly text: string;
  readonly headers: Headers;
}

/**
 * The real `restfn serve` as a subprocess on a free port, with its data folder and master key file
 * in a temp folder (the key outside the data folder, as the server insists). Stopped when the test
 * ends.
 */
export async function startPlatformProcess(
  options: {
    args?: string[];
    env?: Record<string, string>;
    root?: string;
    /** Another instance's master key file (instances on one database share the key). */
    keyFile?: string;
    /** Another restfn.js than the checkout's bundle (an installed package's). */
    cli?: string;
  } = {},
): Promise<PlatformProcess> {
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'restfn-platform-'));
  const dataDir = join(root, 'data');
  const keyFile = options.keyFile ?? join(root, 'keys', 'master.key');
  const { child, done } = startCli(
    ['serve', '--port', '0', '--data', dataDir, '--master-key-file', keyFile, ...(options.args ?? [])],
    {
      env: { XDG_CONFIG_HOME: join(root, 'config'), ...options.env },
      ...(options.cli ? { cli: options.cli } : {}),
    },
  );
  let out = '';
  child.stdout!.on('data', (c) => {
    out += c;
  });
  child.stderr!.on('data', (c) => {
    out += c;
  });
  let ended = false;
  void done.then(() => {
    ended = true;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /restfn platform listening on (http:\/\/\S+)/.exec(out);
      if (match) return resolve(match[1]!);
      if (ended) return reject(new Error(`restfn serve ended before listening:\n${out}`));
      setTimeout(check, 25);
    };
    check();
  });
  const adminToken =
    /admin's API token \(shown once, keep it now\): (\S+)/.exec(out)?.[1] ??
    options.env?.RESTFN_ADMIN_TOKEN ??
    '';
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (!ended) child.kill(signal);
    // A server that does not stop is ended all the same: no test leaves one behind.
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
    try {
      return await done;
    } finally {
      clearTimeout(kill);
    }
  };
  onTestFinished(async () => {
    await stop();
    if (!options.root) rmSync(root, { recursive: true, force: true });
  });
  return {
    url,
    adminToken,
    dataDir,
    keyFile,
    pid: child.pid!,
    output: () => out,
    stop,
    async api(method, path, { token, body } = {}) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, text, headers: res.headers };
    },
  };
}

/** Every file below `dir`, as latin1 and utf8 text together: what a search for a secret must cover. */
export function bytesOf(dir: string): string {
  const parts: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const bytes = readFileSync(path);
        parts.push(bytes.toString('latin1'), bytes.toString('utf8'));
      }
    }
  };
  walk(dir);
  return parts.join('\n');
}

/** A solution's files as `restfn publish` sends them. */
export function functionFile(url: string, extra = ''): string {
  return `provider: DATA_PROVIDER_REST\nmethod: GET\nurl: ${url}\n${extra}`;
}

/**
 * Author `alice` and user `carol` of solution `s`, `files` published by alice, and the secret
 * credential `api-key` stored by her (origins as given, else those of the functions naming it).
 */
export async function solutionWithKey(
  platform: PlatformProcess,
  files: Record<string, string>,
  options: { secret: string; origins?: string[] },
) {
  const admin = platform.adminToken;
  const tokenOf = async (name: string, role: string) => {
    await platform.api('POST', '/api/v1/users', { token: admin, body: { name, role, solutions: ['s'] } });
    return (await platform.api('POST', `/api/v1/users/${name}/tokens`, { token: admin, body: {} })).body
      .token as string;
  };
  const author = await tokenOf('alice', 'author');
  const user = await tokenOf('carol', 'user');
  const published = await platform.api('PUT', '/api/v1/solutions/s', {
    token: author,
    body: { files: { 'solution.yaml': 'name: s\n', ...files } },
  });
  expect(published.status, published.text).toBe(201);
  const stored = await platform.api('PUT', '/api/v1/solutions/s/credentials/api-key', {
    token: author,
    body: { kind: 'secret', value: options.secret, ...(options.origins ? { origins: options.origins } : {}) },
  });
  expect(stored.status, stored.text).toBeLessThan(300);
  return { author, user, stored: stored.body, published: published.body };
}
