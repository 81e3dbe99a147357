import { timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyError, type FastifyInstance, LogController } from 'fastify';
import type { DestinationStream } from 'pino';
import { httpStatusOf } from '../errors/codes.js';
import { RestfnError } from '../errors/restfn-error.js';
import { authorize } from './auth/authorize.js';
import { bearerToken, hashToken } from './auth/tokens.js';
import { headersTimeoutOptions } from './connection-limits.js';
import { registerConsoleFiles } from './console-files.js';
import type { PlatformContext } from './context.js';
import { registerCors } from './cors.js';
import { errorBody, PlatformError } from './errors.js';
import { boundPipelining } from './pipelining.js';
import { connectionRoutes } from './routes/connections.js';
import { credentialRoutes } from './routes/credentials.js';
import { callRoutes, executeRoutes, previewRoutes } from './routes/execute.js';
import { CSRF_HEADER, SESSION_COOKIE, sessionRoutes } from './routes/session.js';
import { solutionRoutes } from './routes/solutions.js';
import { targetRoutes } from './routes/targets.js';
import { userRoutes } from './routes/users.js';
import { plainSchemaMessage } from './schema-messages.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { storeFullError, writeFailureOf } from './store/full.js';

export interface AppOptions {
  readonly logLevel: string;
  readonly logStream?: DestinationStream;
  /** Requests per minute per token (per address without one). */
  readonly rateLimit: number;
  /** Largest request body, bytes (a publish may be larger: see the route). */
  readonly bodyLimit: number;
  /**
   * Proxies (addresses or CIDR ranges) whose X-Forwarded-For/-Proto are believed: the client's
   * address (rate limits, sign-in limits, the audit) and https (the Secure cookie). @default none
   */
  readonly trustProxy?: readonly string[];
  /** True once a shutdown began: answers then close their connection, so the server can end. */
  readonly isClosing?: () => boolean;
  /** The time a client has to send a request's headers (`--headers-timeout-ms`). @default Node's */
  readonly headersTimeoutMs?: number;
  /** Origins whose pages may call the API (`--app-origin`, checked: `appOriginsOf`). @default none */
  readonly appOrigins?: readonly string[];
}

/** Log fields that could carry a credential, whatever a future log line includes. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.value',
  '*.clientSecret',
];

/**
 * The platform's HTTP API on fastify: authentication (API tokens) and one authorization decision
 * per route (`config.permission`, decided by `authorize`), rate limits per token, security headers,
 * structured logs with credentials redacted, and every error as `{ status: "error", code, message }`
 * with the HTTP status the error registry gives its code.
 */
export async function buildApp(ctx: PlatformContext, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: options.logLevel,
      redact: { paths: REDACT, censor: '***' },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: options.bodyLimit,
    // A connection that sends half a request's headers and waits is closed (slowloris).
    ...(options.headersTimeoutMs !== undefined ? headersTimeoutOptions(options.headersTimeoutMs) : {}),
    // Only the named proxies' forwarded headers count; anyone can send X-Forwarded-For.
    trustProxy: options.trustProxy?.length ? [...options.trustProxy] : false,
    // One line per request, when it is answered (below), instead of fastify's two. (Through a
    // LogController: the top-level option is deprecated and printed a warning at every start.)
    logController: new LogController({ disableRequestLogging: true }),
    // A property the schema does not allow is an error (REQUEST_INVALID), not silently dropped.
    ajv: { customOptions: { removeAdditional: false } },
  });
  // At most a few requests in flight per connection (pipelining), checked before anything else.
  boundPipelining(app);
  // helmet's security headers on every answer, computed once: @fastify/helmet built helmet's
  // middleware anew for every request (parsing its CSP directives), a tenth of the request
  // thread's own time per execution (issue 29).
  app.addHook('onRequest', (req, reply, done) => {
    void reply.headers(SECURITY_HEADERS);
    // The API's answers are no cache's to keep: a session's CSRF token, a new API token, a
    // credential's metadata, an execution's output. (A route may still say otherwise.)
    if (req.url.startsWith('/api/')) void reply.header('cache-control', 'no-store');
    done();
  });
  // CORS for the app origins: before who is asking is found out, so refusals carry it too.
  registerCors(app, options.appOrigins ?? []);
  // The API's description, from the routes' own schemas (registered before them to see them all).
  await app.register(swagger, {
    openapi: {
      info: { title: 'restfn platform API', version: '1' },
      components: { securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
      security: [{ token: [] }],
    },
  });
  await app.register(cookie);
  // The connect flow's confirmation page posts a form (it is a page, not the console).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  app.decorateRequest('user', undefined as never);
  app.decorateRequest('csrfToken', undefined);
  app.decorateRequest('authProblem', undefined);
  // Who: every route with a permission needs a live API token, or the console's session cookie
  // (and then, for a change, its CSRF token). Found out first (an instance hook runs before the
  // routes' own, the rate limit's among them), so requests are counted per user whichever of the
  // user's tokens or sessions they carry; a request that is no one's counts per address, whatever
  // made-up header it carries, and is refused only after it was counted.
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config.permission === undefined) return;
    const token = bearerToken(req.headers.authorization);
    if (token) {
      const hash = hashToken(token);
      const found = await ctx.tokens.get(hash, () => ctx.store.tokenByHash(hash));
      if (found) req.user = found.user;
      else req.authProblem = new PlatformError('AUTH_REQUIRED', 'the API token is unknown or revoked');
      return;
    }
    const cookieValue = req.cookies[SESSION_COOKIE];
    const signedIn = cookieValue
      ? await ctx.store.sessionByHash(hashToken(cookieValue), new Date().toISOString())
      : undefined;
    if (!signedIn) {
      req.authProblem = new PlatformError(
        'AUTH_REQUIRED',
        cookieValue
          ? 'the console session ended: sign in again'
          : 'send an API token (Authorization: Bearer <token>) or sign in to the console',
      );
      return;
    }
    if (!SAFE_METHODS.has(req.method) && !sameSecret(req.headers[CSRF_HEADER], signedIn.session.csrfToken)) {
      req.authProblem = new PlatformError(
        'CSRF_INVALID',
        `a change made with the console session needs its ${CSRF_HEADER} header`,
      );
      return;
    }
    req.user = signedIn.user;
    req.csrfToken = signedIn.session.csrfToken;
  });
  await app.register(rateLimit, {
    max: options.rateLimit,
    timeWindow: 60_000,
    store: ctx.counters.store,
    keyGenerator: (req) => (req.user ? `user:${req.user.id}` : `ip:${req.ip}`),
    errorResponseBuilder: (req, context) =>
      Object.assign(
        new PlatformError(
          'RATE_LIMITED',
          `more than ${context.max} requests per minute ${req.user ? 'by this user' : 'from this address'}; try again in ${Math.ceil(context.ttl / 1000)} s`,
        ),
        { statusCode: 429 },
      ),
  });
  // Refused once counted, before the body is read.
  app.addHook('preParsing', async (req) => {
    if (req.authProblem) throw req.authProblem;
  });
  // What: one decision per route, in one place.
  app.addHook('preHandler', async (req) => {
    const permission = req.routeOptions.config.permission;
    if (permission === undefined) return;
    const solution = (req.params as { solution?: string } | undefined)?.solution;
    const decision = authorize(req.user, permission, solution);
    if (!decision.allowed) throw new PlatformError('FORBIDDEN', decision.reason);
  });

  app.addHook('onResponse', async (req, reply) => {
    // A connect flow's callback carries the provider's code and the state: the path only.
    const url = req.routeOptions.url === '/api/v1/oauth/callback' ? req.url.split('?')[0] : req.url;
    req.log.info(
      { method: req.method, url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    );
  });

  // A keep-alive connection whose request was in flight at shutdown would hold the close open.
  app.addHook('onSend', async (_req, reply) => {
    if (options.isClosing?.()) void reply.header('connection', 'close');
  });

  app.setNotFoundHandler((req, reply) => {
    void reply
      .status(404)
      .send(
        errorBody(new PlatformError('ROUTE_NOT_FOUND', `no endpoint ${req.method} ${req.url.split('?')[0]}`)),
      );
  });
  // An outage of the database fails every request: the operator hears of it once every 10 s,
  // not once per request.
  let outageWarned = 0;
  app.setErrorHandler((error: FastifyError, req, reply) => {
    // A request the route's schema refused: said in the caller's words (schema-messages.ts).
    const coded = error.validation
      ? new PlatformError(
          'REQUEST_INVALID',
          plainSchemaMessage(
            error.validation,
            error.validationContext,
            (req.routeOptions.schema as { body?: { properties?: Record<string, unknown> } } | undefined)
              ?.body,
          ),
        )
      : asCoded(error);
    const status = httpStatusOf(coded.code);
    if (status >= 500 && coded.code === 'INTERNAL') req.log.error({ err: error }, 'unexpected error');
    if (coded.code === 'STORE_FULL') ctx.dataHealth.failed();
    if (
      (coded.code === 'STORE_UNAVAILABLE' || coded.code === 'STORE_FULL') &&
      Date.now() - outageWarned > 10_000
    ) {
      outageWarned = Date.now();
      req.log.warn({ code: coded.code }, coded.message);
    }
    if (DENIALS.has(coded.code)) {
      ctx.denied.record({
        actor: req.user?.name ?? 'anonymous',
        method: req.method,
        route: req.routeOptions.url ?? 'unknown route',
        outcome: coded.code,
        address: req.ip,
      });
    }
    if (coded instanceof PlatformError && coded.retryAfterSeconds !== undefined)
      void reply.header('retry-after', String(coded.retryAfterSeconds));
    void reply.status(status).send(errorBody(coded));
  });

  // For load balancers: an instance whose database cannot be reached is taken out (503).
  // So is one that cannot write its data (a full or read-only disk): a probe, see DataHealth.
  // Outside the per-address rate limit: a balancer probing often (or many behind one address)
  // must not see 429 and take a healthy instance out.
  app.get('/healthz', { config: { rateLimit: false }, schema: { hide: true } }, async (_req, reply) => {
    await ctx.store.ping();
    const full = await ctx.dataHealth.check();
    if (full) return reply.status(503).send(errorBody(storeFullError(full)));
    return { status: 'ok' };
  });
  await serveConsole(app);
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // For Prometheus: an admin's token (or `--metrics-port`, on the loopback address, without one).
  app.get('/metrics', { config: { permission: 'metrics.read' }, schema: { hide: true } }, (_req, reply) =>
    reply.type(METRICS_TYPE).send(ctx.metrics.readable()),
  );
  await app.register(
    async (api) => {
      userRoutes(api, ctx);
      solutionRoutes(api, ctx);
      credentialRoutes(api, ctx);
      connectionRoutes(api, ctx);
      executeRoutes(api, ctx);
      previewRoutes(api, ctx);
      sessionRoutes(api, ctx);
      callRoutes(api, ctx);
      targetRoutes(api, ctx);
    },
    { prefix: '/api/v1' },
  );
  return app;
}

/** Prometheus's text exposition format. */
export const METRICS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Refusals the audit counts (see `DeniedRequests`): who was turned away, where, and why. */
const DENIALS: ReadonlySet<string> = new Set(['AUTH_REQUIRED', 'FORBIDDEN', 'CSRF_INVALID', 'RATE_LIMITED']);

/**
 * The console's built files (dist/console, from `npm run build`) at /console/, same origin as the
 * API. Both the tsc output (dist/platform/app.js) and the CLI bundle (dist/bin/chunks/*.js) sit
 * two folders below dist/.
 */
async function serveConsole(app: FastifyInstance): Promise<void> {
  const root = fileURLToPath(new URL('../../console/', import.meta.url));
  app.get('/console', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/console/'));
  // Someone who opens the platform's address in a browser wants the console.
  app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/console/'));
  if (!existsSync(join(root, 'index.html'))) {
    app.get('/console/*', { schema: { hide: true } }, async () => {
      throw new PlatformError('ROUTE_NOT_FOUND', 'the console is not built here: run npm run build');
    });
    return;
  }
  registerConsoleFiles(app, root);
}

/** A constant-time comparison of a header against the session's token. */
function sameSecret(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Fastify's own errors (a body too large, bad JSON, a schema mismatch) as registry codes. */
function asCoded(error: FastifyError): RestfnError {
  if (error instanceof RestfnError) return error;
  // A disk full or read-only (SQLite, a version folder): the operator's to fix, not a bug.
  const full = writeFailureOf(error);
  if (full) return storeFullError(full);
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new PlatformError(
      'REQUEST_TOO_LARGE',
      'the request body is over the limit (1 MB; a publish 32 MB): send less, or split the upload',
    );
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new PlatformError('REQUEST_INVALID', 'send the body as JSON: Content-Type: application/json');
  }
  if (
    error.validation ||
    (typeof error.statusCode === 'number' && error.statusCode < 500 && error.statusCode >= 400)
  ) {
    return new PlatformError('REQUEST_INVALID', error.message);
  }
  return new RestfnError('INTERNAL', 'the platform failed unexpectedly; the server log has the details');
}
