// `restfn serve` for the benchmarks: the real CLI as a subprocess on a free port, its first admin's
// token given, its default logging on (to a pipe nobody reads); and a JSON API client for it.
import { fork, spawn } from 'node:child_process';
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

/**
 * The remote service of the platform benchmarks (bench/item-server.mjs, in its own process) and a
 * function that GETs its 100 items and reshapes them.
 * @returns {Promise<{ remote: import('node:child_process').ChildProcess, fn: string }>}
 */
export async function itemService() {
  const remote = fork(join(import.meta.dirname, 'item-server.mjs'));
  const { port } = await new Promise((resolve) => remote.once('message', resolve));
  const fn = `provider: DATA_PROVIDER_REST
method: GET
url: http://127.0.0.1:${port}/things/1
outputTransform: '{ "count": $count(items), "first": items[0].name }'
`;
  return { remote, fn };
}

/**
 * Ends a `restfn serve` (SIGTERM, then SIGKILL after 10 s) and waits until it has exited: its
 * workers may still be writing into the data folder (a prepared version), which the caller removes.
 */
export async function stopServe(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
