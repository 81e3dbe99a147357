import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PlatformError } from './errors.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

const HASHED = /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

interface ConsoleFile {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
  /** Vite names its assets by their content hash (`assets/index-CJfXdBTG.js`): never changed under one name. */
  readonly immutable: boolean;
}

/**
 * The console's built files, served from memory under /console/. They are a handful of files that
 * `npm run build` writes and nothing changes while the platform runs, so they are read once at
 * start: a request can only name one of them (no path is ever joined from a URL, so no `..` can
 * reach past the folder), and each answer is a lookup.
 */
export function registerConsoleFiles(app: FastifyInstance, root: string): void {
  const files = new Map<string, ConsoleFile>();
  for (const path of filesUnder(root)) {
    const name = relative(root, path).split(sep).join('/');
    const body = readFileSync(path);
    files.set(name, {
      body,
      type: TYPES[extname(path)] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      immutable: HASHED.test(name),
    });
  }
  app.get('/console/*', { schema: { hide: true } }, async (req, reply) => {
    const name = (req.params as { '*': string })['*'] || 'index.html';
    const file = files.get(name);
    if (!file) throw new PlatformError('ROUTE_NOT_FOUND', `the console has no file '${name}'`);
    void reply
      .header('content-type', file.type)
      .header('etag', file.etag)
      .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
    return reply.send(file.body);
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}
