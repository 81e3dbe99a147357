// The customers web app against a real platform: `node examples/web-app/serve.mjs` (after `npm run build`)
// serves the app (its files, and the browser build at /restfn/client/), starts the demo API, starts
// `restfn serve --app-origin <the app's origin>` in a temp folder (or uses the one at --platform
// URL), publishes the demo solution, makes an app user and a token for it, and prints the URL to
// open. The page calls the platform cross-origin (CORS); its token and the platform's address are
// in the page's <meta> tags, never in a URL, and nothing here prints the token.
//
//   --port N        the app's port on 127.0.0.1 (default 8090; 0: a free one)
//   --api-port N    the demo API's port (default 4010, the one its function files name; another one
//                   is written into the published copy)
//   --platform URL  a running `restfn serve` instead of a new one; RESTFN_TOKEN is an admin's token.
//                   That platform must list the app's origin (--app-origin http://127.0.0.1:8090)
//                   and may call the demo API (--allow-target demo=127.0.0.1:4010).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startDemoApi } from '../demo/api/server.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const demo = fileURLToPath(new URL('../demo/', import.meta.url));
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const SOLUTION = 'demo';
const APP_USER = 'app-user';

/** Everything to undo on the way out, last first. */
const cleanups = [];
let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  process.exit(code);
}
process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());

function fail(message) {
  console.error(`serve.mjs: ${message}`);
  if (cleanups.length) void stop(1);
  else process.exit(1);
}

const USAGE = 'usage: node examples/web-app/serve.mjs [--port 8090] [--api-port 4010] [--platform URL]';
let args;
try {
  ({ values: args } = parseArgs({
    options: {
      port: { type: 'string', default: '8090' },
      'api-port': { type: 'string', default: '4010' },
      platform: { type: 'string' },
      help: { type: 'boolean' },
    },
  }));
} catch (error) {
  fail(`${error.message}\n${USAGE}`);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!existsSync(join(dist, 'browser', 'index.js')) || !existsSync(join(dist, 'bin', 'restfn.js')))
  fail('the build is missing: run `npm run build` first');
if (args.platform && !process.env.RESTFN_TOKEN)
  fail('--platform needs an admin token of that platform in RESTFN_TOKEN');

try {
  // The app first: the platform is told its origin.
  const page = { server: '', token: '' };
  const app = await appServer(page, Number(args.port));
  cleanups.push(() => new Promise((resolve) => app.close(resolve).closeAllConnections()));
  const appOrigin = `http://127.0.0.1:${app.address().port}`;

  const api = await startDemoApi(Number(args['api-port']));
  cleanups.push(() => new Promise((resolve) => api.close(resolve).closeAllConnections()));
  const apiOrigin = `http://127.0.0.1:${api.address().port}`;
  console.log(`demo API on ${apiOrigin}`);

  const platform = args.platform
    ? { url: args.platform.replace(/\/$/, ''), admin: process.env.RESTFN_TOKEN }
    : await startPlatform(api.address().port, appOrigin);
  const call = platformApi(platform.url, platform.admin);

  const published = await call('PUT', `/api/v1/solutions/${SOLUTION}`, {
    files: demoFiles(apiOrigin),
  });
  const user = await call(
    'POST',
    '/api/v1/users',
    { name: APP_USER, role: 'user', solutions: [SOLUTION] },
    { allow: ['USER_EXISTS'] },
  );
  const { id, token } = await call('POST', `/api/v1/users/${APP_USER}/tokens`, { name: 'web-app demo' });
  // The token is the demo's: revoked when this server stops, so runs do not pile them up.
  cleanups.push(() => call('DELETE', `/api/v1/users/${APP_USER}/tokens/${id}`));
  Object.assign(page, { server: platform.url, token });
  console.log(
    `published solution '${SOLUTION}' v${published.version}${published.unchanged ? ' (unchanged)' : ''} on ${platform.url}; ` +
      `app user '${APP_USER}' ${user.code === 'USER_EXISTS' ? 'was there' : 'made'}, with a token for the page (not shown)`,
  );
  console.log(`open ${appOrigin}/   (Ctrl-C stops everything)`);
} catch (error) {
  fail(
    error.code === 'EADDRINUSE'
      ? `port in use (${error.message}); pass another --port/--api-port`
      : error.message,
  );
}

/** `restfn serve` in a temp folder, its log in a file there; the admin token never printed. */
async function startPlatform(apiPort, appOrigin) {
  const root = mkdtempSync(join(tmpdir(), 'restfn-web-app-'));
  cleanups.push(async () => rmSync(root, { recursive: true, force: true }));
  const admin = randomBytes(32).toString('base64url');
  const log = join(root, 'serve.log');
  const child = spawn(
    process.execPath,
    [
      join(dist, 'bin', 'restfn.js'),
      'serve',
      ...['--port', '0', '--data', join(root, 'data'), '--master-key-file', join(root, 'keys', 'master.key')],
      ...['--allow-target', `${SOLUTION}=127.0.0.1:${apiPort}`, '--app-origin', appOrigin],
    ],
    {
      env: { ...process.env, RESTFN_ADMIN_TOKEN: admin, XDG_CONFIG_HOME: join(root, 'config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const ended = new Promise((resolve) => child.on('close', resolve));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await ended;
  });
  const file = createWriteStream(log);
  child.stderr.pipe(file);
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    file.write(chunk);
  });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /restfn platform listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    void ended.then(() => reject(new Error(`restfn serve ended before listening; see ${log}`)));
  });
  console.log(`restfn serve on ${url} (started here; its log: ${log})`);
  return { url, admin };
}

/** Calls the platform's API as its admin; a refusal throws with the platform's code, unless allowed. */
function platformApi(url, token) {
  return async (method, path, body, { allow = [] } = {}) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const answer = res.status === 204 ? {} : await res.json().catch(() => ({}));
    const code = answer.error?.code ?? answer.code;
    if (res.ok) return answer;
    if (allow.includes(code)) return { code };
    throw new Error(
      `${method} ${path}: ${res.status} ${code ?? ''} ${answer.error?.message ?? answer.message ?? ''}`,
    );
  };
}

/** The demo solution's files as `restfn publish` sends them, pointed at the demo API's origin. */
function demoFiles(apiOrigin) {
  const files = {};
  const add = (path) => {
    const text = readFileSync(path, 'utf8');
    files[relative(demo, path).split(sep).join('/')] = text.replaceAll('http://127.0.0.1:4010', apiOrigin);
  };
  add(join(demo, 'solution.yaml'));
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.platform')) add(path);
    }
  };
  for (const folder of ['functions', 'datasources', 'actions']) walk(join(demo, folder));
  return files;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
};

/**
 * The app's server: its files at /, the browser build at /restfn/client/. The page gets the
 * platform's address and the app user's token in its <meta> tags (`page`, filled in once known):
 * the demo's stand-in for an app's own sign-in (docs/client.md).
 */
async function appServer(page, port) {
  const mounts = [
    ['/restfn/client/', join(dist, 'browser')],
    ['/', here],
  ];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://app').pathname);
    const [prefix, folder] = mounts.find(([prefix]) => path.startsWith(prefix));
    const base = normalize(folder + sep);
    const rest = path.slice(prefix.length);
    const file = normalize(join(base, rest === '' || rest.endsWith('/') ? `${rest}index.html` : rest));
    // Only the app's own files and the build: not this script, nor anything above the folders.
    if (req.method !== 'GET' || !file.startsWith(base) || file.endsWith('.mjs'))
      return void res.writeHead(404).end();
    try {
      let body = await readFile(file);
      if (file === join(here, 'index.html'))
        body = body
          .toString('utf8')
          .replace(
            '<meta name="restfn-server" content="" />',
            `<meta name="restfn-server" content="${attributeValue(page.server)}" />`,
          )
          .replace(
            '<meta name="restfn-token" content="" />',
            `<meta name="restfn-token" content="${attributeValue(page.token)}" />`,
          );
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

function attributeValue(text) {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
