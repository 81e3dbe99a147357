import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { exchangeCode, revokeToken, startAuthorization } from '../../auth/oauth.js';
import type { OAuthCredential, TokenSet } from '../../auth/store.js';
import { RestfnError } from '../../errors/restfn-error.js';
import { htmlEscaped } from '../../runtime/mask.js';
import { authorize } from '../auth/authorize.js';
import type { PlatformContext } from '../context.js';
import { PlatformError } from '../errors.js';
import { SOLUTION_NAME } from '../publish.js';
import { SECURITY_HEADERS } from '../security-headers.js';
import { guardedFetch, platformGuard } from '../ssrf.js';
import { hostsOf } from '../store/allowed-targets.js';
import { connectionBinding } from '../vault/credential-change.js';

/** The cookie that binds a connect flow to the browser that started it. */
export const CONNECT_COOKIE = 'restfn_connect';
/** Where the provider sends the user back; register `<public url>` + this with the provider. */
export const CALLBACK_PATH = '/api/v1/oauth/callback';
/** How long a connect flow may take, from `/connect` to the callback. */
const FLOW_MS = 10 * 60_000;
/** Between the solution and the random part of a `state`. */
const STATE_SEPARATOR = '~';

const PARAMS = {
  type: 'object',
  required: ['solution', 'key'],
  properties: {
    solution: { type: 'string', pattern: SOLUTION_NAME.source },
    key: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' },
  },
} as const;

interface Flow {
  readonly user: string;
  readonly userName: string;
  readonly key: string;
  readonly verifier: string;
  /** SHA-256 of the browser cookie's value. */
  readonly browser: string;
  readonly returnTo: string | null;
  readonly expires: number;
  /** What the credential was when the flow started (`connectionBinding`): it must still be it. */
  readonly client: string;
  /** Set once the code was exchanged in a browser without the cookie: waits for the user's yes. */
  readonly pending?: { tokens: Omit<TokenSet, 'kind'>; account: string | null; scopes: string[] };
  /** The credential the pending tokens came from (to revoke them if the yes comes too late). */
  readonly pendingFrom?: OAuthCredential;
}

/**
 * Per-user connections (spec 5: "an OAuth flow yields a token for that user"): each platform user
 * connects their own account to an authorization-code credential, and executions call as them.
 * The flow is PKCE with a server-side `state` bound to the user, the credential and the solution,
 * single use and short-lived, and to the browser that started it (a cookie); a callback in another
 * browser (an app that opened the url in a browser view) is asked to confirm, naming the account
 * and the platform user, so that no one attaches their account to someone else's user unawares.
 */
export function connectionRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  const redirectUri = () => `${ctx.publicUrl()}${CALLBACK_PATH}`;

  app.get<{ Params: { solution: string; key: string }; Querystring: { returnTo?: string } }>(
    '/solutions/:solution/credentials/:key/connect',
    {
      config: { permission: 'function.execute' },
      schema: {
        params: PARAMS,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { returnTo: { type: 'string', maxLength: 2000 } },
        },
      },
    },
    async (req, reply) => {
      const { solution, key } = req.params;
      const credential = await perUserCredential(ctx, solution, key);
      // Flows nobody finished go when new ones start (they expire after 10 minutes anyway).
      await ctx.vault.pruneFlows(solution, Date.now());
      const start = await startAuthorization(credential, redirectUri());
      // The solution travels in the state: the callback is one address for every solution. `~`
      // is in no solution name (they may hold dots) and in no random state (base64url).
      const state = `${solution}${STATE_SEPARATOR}${start.state}`;
      start.url.searchParams.set('state', state);
      const browser = randomBytes(32).toString('base64url');
      const returnTo = returnAddress(ctx, req.query.returnTo);
      const flow: Flow = {
        user: req.user.id,
        userName: req.user.name,
        key,
        verifier: start.verifier,
        browser: sha256(browser),
        returnTo,
        expires: Date.now() + FLOW_MS,
        client: connectionBinding(credential),
      };
      await ctx.vault.putFlow(solution, sha256(state), { ...flow });
      void reply.setCookie(CONNECT_COOKIE, browser, {
        httpOnly: true,
        // Sent on the provider's redirect back (a top-level navigation), not on other sites' requests.
        sameSite: 'lax',
        secure: req.protocol === 'https',
        path: CALLBACK_PATH,
        maxAge: FLOW_MS / 1000,
      });
      if (wantsJson(req)) return { url: start.url.href };
      return reply.redirect(start.url.href, 302);
    },
  );

  app.get<{ Querystring: Record<string, string> }>(
    '/oauth/callback',
    { schema: { hide: true } },
    async (req, reply) => {
      const state = req.query.state ?? '';
      const solution = state.slice(0, Math.max(0, state.indexOf(STATE_SEPARATOR)));
      const flow = SOLUTION_NAME.test(solution)
        ? ((await ctx.vault.takeFlow(solution, sha256(state))) as Flow | undefined)
        : undefined;
      if (!flow || flow.expires < Date.now()) {
        return expiredPage(reply);
      }
      if (req.query.error) {
        return page(
          reply,
          400,
          'The provider did not connect the account',
          `It answered: ${req.query.error}.`,
        );
      }
      const credential = await stillTheClient(ctx, solution, flow);
      if (!credential) return changedPage(reply, flow);
      const callback = new URL(`${ctx.publicUrl()}${req.url}`);
      let exchanged: Awaited<ReturnType<typeof exchangeCode>>;
      try {
        exchanged = await exchangeCode(
          credential,
          { state, verifier: flow.verifier },
          callback,
          redirectUri(),
          Date.now(),
          await fetchFor(ctx, solution),
        );
      } catch (error) {
        const message = error instanceof RestfnError ? error.message : 'the token request failed';
        return page(
          reply,
          400,
          'The account could not be connected',
          `${message}. Start connecting again from the app or the console.`,
        );
      }
      const connection = {
        tokens: exchanged.tokens,
        account: exchanged.account ?? null,
        scopes: exchanged.scopes,
      };
      const cookie = req.cookies[CONNECT_COOKIE];
      void reply.clearCookie(CONNECT_COOKIE, { path: CALLBACK_PATH });
      if (cookie !== undefined && sha256(cookie) === flow.browser) {
        return connected(req, reply, solution, flow, connection, credential);
      }
      // Another browser: the user says whether this account is theirs to connect to this user.
      const confirm = randomBytes(32).toString('base64url');
      await ctx.vault.putFlow(solution, sha256(`confirm.${confirm}`), {
        ...flow,
        pending: connection,
        pendingFrom: credential,
        expires: Date.now() + FLOW_MS,
      });
      return page(
        reply,
        200,
        'Connect this account?',
        `Connect ${connection.account ?? 'this account'} to the platform user ${flow.userName} for '${flow.key}' in ${solution}? Only do this if you started it.`,
        { action: '/api/v1/oauth/confirm', fields: { solution, confirm } },
        formActionTo(ctx, flow.returnTo),
      );
    },
  );

  app.post<{ Body: { solution?: string; confirm?: string } }>(
    '/oauth/confirm',
    { schema: { hide: true } },
    async (req, reply) => {
      const { solution = '', confirm = '' } = req.body ?? {};
      const flow = SOLUTION_NAME.test(solution)
        ? ((await ctx.vault.takeFlow(solution, sha256(`confirm.${confirm}`))) as Flow | undefined)
        : undefined;
      if (!flow?.pending || flow.expires < Date.now()) {
        return expiredPage(reply);
      }
      // The credential may have been removed, or given another client, while the page was open:
      // then nothing is kept, and the tokens are revoked at the provider they came from.
      const credential = await stillTheClient(ctx, solution, flow);
      if (!credential) {
        const before = flow.pendingFrom;
        if (before) await revokeAll(ctx, solution, before, flow.pending.tokens);
        return changedPage(reply, flow);
      }
      return connected(req, reply, solution, flow, flow.pending, credential);
    },
  );

  app.get<{ Params: { solution: string } }>(
    '/solutions/:solution/connections',
    {
      config: { permission: 'function.execute' },
      schema: { params: { ...PARAMS, required: ['solution'] } },
    },
    async (req) => {
      // Authors and admins see everyone's (never a token); a user sees their own.
      const all = authorize(req.user, 'credentials.manage', req.params.solution).allowed;
      return { connections: await ctx.vault.connections(req.params.solution, all ? undefined : req.user.id) };
    },
  );

  app.delete<{ Params: { solution: string; key: string } }>(
    '/solutions/:solution/credentials/:key/connection',
    { config: { permission: 'function.execute' }, schema: { params: PARAMS } },
    async (req, reply) => {
      await disconnect(req, req.params.solution, req.params.key, req.user.id);
      return reply.status(204).send();
    },
  );

  app.delete<{ Params: { solution: string; key: string; user: string } }>(
    '/solutions/:solution/credentials/:key/connections/:user',
    {
      config: { permission: 'credentials.manage' },
      schema: {
        params: {
          ...PARAMS,
          required: ['solution', 'key', 'user'],
          properties: { ...PARAMS.properties, user: { type: 'string', maxLength: 100 } },
        },
      },
    },
    async (req, reply) => {
      const { solution, key, user } = req.params;
      const named = await ctx.store.userByName(user);
      await disconnect(req, solution, key, named?.id ?? user);
      return reply.status(204).send();
    },
  );

  // Every user's connection to a credential at once (a credential rotated at the provider, say).
  app.delete<{ Params: { solution: string; key: string } }>(
    '/solutions/:solution/credentials/:key/connections',
    { config: { permission: 'credentials.manage' }, schema: { params: PARAMS } },
    async (req) => {
      const { solution, key } = req.params;
      const users = (await ctx.vault.connections(solution)).filter((c) => c.key === key).map((c) => c.user);
      for (const user of users) await disconnect(req, solution, key, user);
      return { removed: users.length };
    },
  );

  /** Stores the connection; says which account was connected, or goes back where the app asked. */
  async function connected(
    req: FastifyRequest,
    reply: FastifyReply,
    solution: string,
    flow: Flow,
    connection: NonNullable<Flow['pending']>,
    /** The credential the tokens came from (to revoke them if it changed meanwhile). */
    from: OAuthCredential,
  ) {
    // Kept only if the credential is still what the flow started with (checked with the change
    // lock held: a change that lands meanwhile either drops this connection or is seen here).
    const kept = await ctx.vault.connect(
      solution,
      flow.key,
      { id: flow.user, name: flow.userName },
      connection.tokens,
      connection,
      flow.client,
    );
    if (!kept) {
      await revokeAll(ctx, solution, from, connection.tokens);
      return changedPage(reply, flow);
    }
    await ctx.auditLog.record({
      at: new Date().toISOString(),
      actor: flow.userName,
      solution,
      action: 'connection.add',
      target: flow.key,
      outcome: 'ok',
      correlationId: null,
      durationMs: null,
    });
    req.log.info({ solution, credential: flow.key, user: flow.userName }, 'connection made');
    if (flow.returnTo) return reply.redirect(flow.returnTo, 303);
    return page(
      reply,
      200,
      'Connected',
      `${connection.account ?? 'The account'} is connected to ${flow.userName} for '${flow.key}' in ${solution}. You can close this page.`,
    );
  }

  /** Drops a user's connection, and revokes its tokens at the provider when it can. */
  async function disconnect(req: FastifyRequest, solution: string, key: string, user: string): Promise<void> {
    const tokens = await ctx.vault.disconnect(solution, key, user);
    if (!tokens)
      throw new PlatformError(
        'CONNECTION_NOT_FOUND',
        `no connection of that user to '${key}' in '${solution}'`,
      );
    const credential = await ctx.vault.records(solution).get(key);
    if (credential?.kind === 'oauth') await revokeAll(ctx, solution, credential, tokens);
    await ctx.audit(req, {
      solution,
      action: 'connection.remove',
      target: key,
      outcome: 'ok',
      correlationId: null,
      durationMs: null,
    });
  }
}

/** The flow's credential, when it is still there and still the client the flow started with. */
async function stillTheClient(
  ctx: PlatformContext,
  solution: string,
  flow: Flow,
): Promise<OAuthCredential | undefined> {
  const credential = await ctx.vault.records(solution).get(flow.key);
  if (credential?.kind !== 'oauth' || credential.grantType !== 'authorization_code') return undefined;
  return connectionBinding(credential) === flow.client ? credential : undefined;
}

function expiredPage(reply: FastifyReply) {
  return page(
    reply,
    400,
    'This connect link expired or was used',
    'Start connecting again from the app or the console.',
  );
}

function changedPage(reply: FastifyReply, flow: Flow) {
  return page(
    reply,
    400,
    'The credential changed',
    `'${flow.key}' was removed or given another client while connecting; nothing was kept. Start connecting again from the app or the console.`,
  );
}

/** Revokes tokens at the credential's provider, best effort. */
async function revokeAll(
  ctx: PlatformContext,
  solution: string,
  credential: OAuthCredential,
  tokens: Omit<TokenSet, 'kind'>,
): Promise<void> {
  const fetchWith = await fetchFor(ctx, solution);
  for (const token of [tokens.refreshToken, tokens.accessToken]) {
    if (token) await revokeToken(credential, token, fetchWith).catch(() => undefined);
  }
}

/** The credential a connect flow is for: OAuth with the authorization-code grant and an authorize url. */
async function perUserCredential(
  ctx: PlatformContext,
  solution: string,
  key: string,
): Promise<OAuthCredential> {
  const credential = await ctx.vault.records(solution).get(key);
  if (!credential)
    throw new PlatformError('CREDENTIAL_NOT_FOUND', `solution '${solution}' has no credential '${key}'`);
  if (
    credential.kind !== 'oauth' ||
    credential.grantType !== 'authorization_code' ||
    !credential.authorizationEndpoint
  ) {
    throw new PlatformError(
      'REQUEST_INVALID',
      `credential '${key}' is not one users connect to: that is an OAuth credential with the authorization_code grant and an authorization endpoint`,
    );
  }
  return credential;
}

/** Token requests of a solution's credential, held to the platform's SSRF rule (the flags' and the API's targets). */
async function fetchFor(ctx: PlatformContext, solution: string) {
  const guard = platformGuard({
    allowPrivateTargets: ctx.targets.allowPrivateTargets,
    allowHosts: [
      ...hostsOf(ctx.targets.allowTargets, solution),
      ...(await ctx.allowedTargets.storedFor(solution)),
    ],
  });
  return guard ? guardedFetch(guard) : undefined;
}

/**
 * A `returnTo` on the platform's own origin or on an app origin (`--app-origin`: an app that
 * started the flow from its page), else none (never an open redirect).
 */
function returnAddress(ctx: PlatformContext, returnTo: string | undefined): string | null {
  if (!returnTo) return null;
  const base = new URL(ctx.publicUrl());
  const url = URL.parse(returnTo, base.href);
  if (!url || (url.origin !== base.origin && !ctx.appOrigins.includes(url.origin))) {
    const apps = ctx.appOrigins.length ? ` or on an app origin (${ctx.appOrigins.join(', ')})` : '';
    throw new PlatformError(
      'REQUEST_INVALID',
      `returnTo must be an address on this platform (${base.origin})${apps}; an app's origin is listed with restfn serve --app-origin`,
    );
  }
  return url.href;
}

/**
 * The confirmation page's Content-Security-Policy when the flow returns to an app's origin: its
 * form's answer redirects there, and browsers hold a form's redirects to `form-action` too
 * (helmet's is 'self' alone, which would stop the user on the platform's page).
 */
function formActionTo(ctx: PlatformContext, returnTo: string | null): string | undefined {
  const origin = returnTo ? new URL(returnTo).origin : undefined;
  if (!origin || origin === new URL(ctx.publicUrl()).origin) return undefined;
  return SECURITY_HEADERS['content-security-policy']!.replace(
    "form-action 'self'",
    `form-action 'self' ${origin}`,
  );
}

function wantsJson(req: FastifyRequest): boolean {
  return /\bapplication\/json\b/.test(String(req.headers.accept ?? ''));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A small page for the browser that went through the flow; every text escaped. */
function page(
  reply: FastifyReply,
  status: number,
  title: string,
  text: string,
  form?: { action: string; fields: Record<string, string> },
  /** Another Content-Security-Policy than the platform's (`formActionTo`). */
  contentSecurityPolicy?: string,
) {
  const inputs = form
    ? Object.entries(form.fields)
        .map(
          ([name, value]) =>
            `<input type="hidden" name="${htmlEscaped(name)}" value="${htmlEscaped(value)}">`,
        )
        .join('')
    : '';
  const body = form
    ? `<form method="post" action="${htmlEscaped(form.action)}">${inputs}<button type="submit">Connect</button></form>`
    : '';
  if (contentSecurityPolicy) void reply.header('content-security-policy', contentSecurityPolicy);
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${htmlEscaped(title)}</title></head><body><h1>${htmlEscaped(title)}</h1><p>${htmlEscaped(text)}</p>${body}</body></html>`,
    );
}
