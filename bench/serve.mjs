// `restfn serve` for the benchmarks: the real CLI as a subprocess on a free port, its first admin's
// token given, its default logging on (to a pipe nobody reads); and a JSON API client for it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const CLI = join(import.meta.dirname, '..', 'dist', 'bin', 'restfn.js');

/**
 * Starts `restfn serve` with its state in `dataDir` and the master key in `keyFile`, and waits
 * until it listens.
 * @returns {Promise<{ url: string, child: import('node:child_process').ChildProcess,
 *   api: (method: string, path: string, body?: unknown) => Promise<Response> }>}
 */
export async function startServe({ dataDir, keyFile, token, args = [] }) {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
      '--master-key-file',
      keyFile,
      '--allow-private-targets',
      '--rate-limit',
      '100000000',
      ...args,
    ],
    { env: { ...process.env, RESTFN_ADMIN_TOKEN: token }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`restfn serve exited ${code}`)));
  });
  const api = (method, path, body) =>
    fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { url, child, api };
}
