import { readFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.map': 'application/json',
};

/**
 * Answers with the file at `path` under `folder` (`index.html` for a folder), typed by extension
 * and never cached; 404 for anything outside the folder or missing. What a plain web server does.
 */
export async function sendFile(res: ServerResponse, folder: string, path: string): Promise<void> {
  const root = normalize(folder + sep);
  const file = normalize(join(root, path === '' || path.endsWith('/') ? `${path}index.html` : path));
  if (!file.startsWith(root)) return void res.writeHead(404).end();
  try {
    const body = await readFile(file);
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
}

export interface StaticServer {
  /** `http://127.0.0.1:PORT` (a secure context: OPFS, Web Locks and WebAssembly work there). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the files of `folder` on 127.0.0.1, port 0, as a plain web server does: GET only, a type
 * by extension (application/wasm for SQLite's), 404 for anything outside the folder or missing.
 * No cross-origin isolation headers, as an app's own server would not send them.
 */
export async function staticServer(folder: string): Promise<StaticServer> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method !== 'GET') return void res.writeHead(404).end();
    void sendFile(res, folder, path);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
