import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { sendFile } from './static-server.js';

export interface AppServer {
  /** `http://127.0.0.1:PORT`: the app's origin (a secure context: OPFS, Web Locks, WebAssembly). */
  readonly url: string;
  /** Whether `/api/` reaches the platform; off, each such request's connection is cut (the network gone). */
  platformReachable: boolean;
}

/**
 * A web app's server on 127.0.0.1 (port 0): `folders` served by path prefix (`/restfn/client/` the
 * browser build, `/` the app's page), and `/api/` passed to the platform at `platform`, as a
 * reverse proxy in front of both would. Switching `platformReachable` off stands in for the
 * network going away between the app and the platform. No cross-origin isolation headers.
 */
export async function appServer(folders: Record<string, string>, platform: string): Promise<AppServer> {
  const mounts = Object.entries(folders).sort(([a], [b]) => b.length - a.length);
  const target = new URL(platform);
  const app: { url: string; platformReachable: boolean } = { url: '', platformReachable: true };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/api/')) {
      if (!app.platformReachable) return req.socket.destroy();
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => req.socket.destroy());
      req.pipe(upstream);
      return;
    }
    const path = decodeURIComponent(url.pathname);
    const mount = mounts.find(([prefix]) => path.startsWith(prefix));
    if (req.method !== 'GET' || !mount) return void res.writeHead(404).end();
    await sendFile(res, mount[1], path.slice(mount[0].length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  app.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return app;
}
