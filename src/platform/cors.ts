import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UsageError } from '../errors/restfn-error.js';
import { errorBody, PlatformError } from './errors.js';

/** The app origins as the environment gives them (`--app-origin` adds to them): comma or space separated. */
export const APP_ORIGINS_ENV = 'RESTFN_APP_ORIGINS';

/**
 * Request headers an app's page may send: the token, the JSON body's type, and what a fetch
 * sends when the app asks for JSON (Accept is safelisted, but only with short values). Not the
 * console's CSRF header: a console session is never used cross-origin.
 */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
/**
 * Answer headers an app's code may read besides the safelisted ones: when to try again (429, 503)
 * and the rate limit's counters (@fastify/rate-limit's).
 */
const EXPOSED_HEADERS = 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';
/**
 * A browser keeps a preflight's answer this long (Chromium caps it at 2 hours). Only the preflight
 * is cached: every real answer is checked for its own allow-origin, so an origin removed at a
 * restart is refused at once.
 */
const MAX_AGE_SECONDS = 7200;

/**
 * The API paths an app's page may call. Not the console's sign-in (`/api/v1/session`: a cookie,
 * never an app's), nor the connect flow's callback and confirmation (`/api/v1/oauth/...`: pages
 * the browser navigates to, never fetched).
 */
export function isAppPath(url: string): boolean {
  const path = decodedPath(url);
  return (
    path.startsWith('/api/v1/') &&
    !path.startsWith('/api/v1/oauth/') &&
    path !== '/api/v1/session' &&
    !path.startsWith('/api/v1/session/')
  );
}

/**
 * `--app-origin` values (and RESTFN_APP_ORIGINS') as origins: `https://app.example`,
 * `http://127.0.0.1:5173` (scheme, host, optional port; nothing else). `*` is refused: the API
 * takes bearer tokens, and every site a user visits must not be able to call it with one a page
 * got hold of; the app's origins are listed instead.
 */
export function appOriginsOf(given: readonly string[], flag = '--app-origin'): string[] {
  const origins: string[] = [];
  for (const text of given) {
    if (text.includes('*')) {
      throw new UsageError(
        `${flag} '${text}': wildcards are refused: the API takes bearer tokens, so list each origin your apps are served from (e.g. ${flag} https://app.example)`,
        'APP_ORIGIN_WILDCARD',
      );
    }
    const url = URL.parse(text);
    const problem = !url
      ? 'not an address'
      : url.protocol !== 'http:' && url.protocol !== 'https:'
        ? 'not http(s)'
        : url.username || url.password
          ? 'it has a user name or password'
          : url.search || text.includes('?')
            ? 'it has a query'
            : url.hash || text.includes('#')
              ? 'it has a fragment'
              : url.pathname !== '/' || /^[a-z]+:\/\/[^/]+\/./i.test(text)
                ? 'it has a path'
                : undefined;
    if (problem || !url) {
      throw new UsageError(
        `${flag} '${text}' is not an origin (${problem}): give scheme, host and optional port only, such as https://app.example or http://127.0.0.1:5173`,
        'APP_ORIGIN_INVALID',
      );
    }
    // As a browser sends it in Origin: lower-case host, default port left out, no trailing slash.
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}

/** RESTFN_APP_ORIGINS's origins (empty when unset). */
export function appOriginsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const value = env[APP_ORIGINS_ENV]?.trim();
  return value ? appOriginsOf(value.split(/[\s,]+/).filter(Boolean), APP_ORIGINS_ENV) : [];
}

/**
 * CORS for the app origins, on the API's app paths: a preflight from a listed origin is answered
 * here (204, before the token is looked at or the rate limit counts it), one from another origin
 * is refused (403, no CORS headers), and every answer to a listed origin (401, 403, 429 and 5xx
 * included: set before anything can fail) says the origin may read it. Never
 * Access-Control-Allow-Credentials: apps send tokens, and a console session's cookie must not be
 * usable from another origin.
 */
export function registerCors(app: FastifyInstance, appOrigins: readonly string[]): void {
  if (appOrigins.length === 0) return;
  const listed = new Set(appOrigins);
  app.addHook('onRequest', async (req, reply) => {
    if (!isAppPath(req.url)) return;
    // The answer depends on Origin: a cache must not give one origin's answer to another.
    void reply.header('vary', 'Origin');
    const origin = req.headers.origin;
    if (origin === undefined) return;
    const allowed = listed.has(origin);
    if (isPreflight(req)) {
      if (!allowed) {
        return reply
          .status(403)
          .send(
            errorBody(
              new PlatformError(
                'FORBIDDEN',
                `pages of ${origin} may not call this API: the operator lists app origins with restfn serve --app-origin`,
              ),
            ),
          );
      }
      return reply
        .headers({
          'access-control-allow-origin': origin,
          'access-control-allow-methods': ALLOWED_METHODS,
          'access-control-allow-headers': ALLOWED_HEADERS,
          'access-control-max-age': String(MAX_AGE_SECONDS),
        })
        .status(204)
        .send();
    }
    if (allowed) {
      void reply.headers({
        'access-control-allow-origin': origin,
        'access-control-expose-headers': EXPOSED_HEADERS,
      });
    }
  });
}

/** The path as the router matches it: `/api/v1/%73ession` is the session route. */
function decodedPath(url: string): string {
  const path = url.split('?')[0]!;
  try {
    return decodeURIComponent(path);
  } catch {
    // Not percent-encoding the router decodes either: matched as it is.
    return path;
  }
}

function isPreflight(req: FastifyRequest): boolean {
  return req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
}
