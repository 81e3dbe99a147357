import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { SignInLimit } from '../auth/sign-in-limit.js';
import { hashToken } from '../auth/tokens.js';
import type { PlatformContext } from '../context.js';
import { PlatformError } from '../errors.js';

/** The console's session cookie: HttpOnly, SameSite=Strict, Secure over https. */
export const SESSION_COOKIE = 'restfn_session';
/** Header a cookie-signed-in browser sends with every change (CSRF). */
export const CSRF_HEADER = 'x-csrf-token';

const SESSION_HOURS = 12;

/** Checked when the user does not exist, so the answer takes as long as a wrong password. */
let dummyHash: Promise<string> | undefined;

/**
 * Sign in and out of the console. A session is a random 256-bit cookie value (stored only as its
 * SHA-256) with a CSRF token of its own, which every change made with the cookie must send back in
 * `x-csrf-token`: a page on another site can make the browser send the cookie (SameSite=Strict
 * already stops most of that), never read the token.
 */
export function sessionRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  const limit = new SignInLimit(ctx.counters);
  app.post<{ Body: { name: string; password: string } }>(
    '/session',
    {
      // Its own limit, per account and address (below), instead of the address's request limit.
      config: { rateLimit: false },
      schema: {
        body: {
          type: 'object',
          required: ['name', 'password'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', maxLength: 64 },
            password: { type: 'string', maxLength: 1024 },
          },
        },
      },
    },
    async (req, reply) => {
      const { name, password } = req.body;
      limit.attempt(name, req.ip);
      const user = await ctx.store.userByName(name);
      dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
      const stored = user?.passwordHash ?? (await dummyHash);
      const ok = (await verifyPassword(stored, password)) && user?.passwordHash != null;
      if (!ok || !user) {
        limit.failed(name, req.ip);
        // Counted, not a row each: a name no account has is no entry of its own (guessing fresh
        // names would otherwise write the audit as fast as one can ask), and an account's
        // failures are counted too, so the answer takes as long whether the name exists or not.
        ctx.denied.count({
          action: 'sign-in',
          actor: 'anonymous',
          target: user ? name : '(unknown name)',
          outcome: 'SIGN_IN_FAILED',
          address: req.ip,
        });
        throw new PlatformError('SIGN_IN_FAILED', 'the user name or the password is wrong');
      }
      const id = randomBytes(32).toString('base64url');
      const now = new Date();
      const session = {
        userId: user.id,
        csrfToken: randomBytes(32).toString('base64url'),
        created: now.toISOString(),
        expires: new Date(now.getTime() + SESSION_HOURS * 3_600_000).toISOString(),
      };
      await ctx.store.createSession(hashToken(id), session);
      req.user = user;
      await ctx.audit(req, {
        solution: null,
        action: 'sign-in',
        target: name,
        outcome: 'ok',
        correlationId: null,
        durationMs: null,
        detail: JSON.stringify({ address: req.ip }),
      });
      void reply.setCookie(SESSION_COOKIE, id, {
        httpOnly: true,
        sameSite: 'strict',
        secure: req.protocol === 'https',
        path: '/',
        expires: new Date(session.expires),
      });
      return { user: shownUser(user), csrfToken: session.csrfToken, expires: session.expires };
    },
  );

  app.get('/session', { config: { permission: 'tokens.manage-own' } }, async (req) => ({
    user: shownUser(req.user),
    csrfToken: req.csrfToken,
  }));

  // The console's check on load: "not signed in" is an answer, not an error, so a first visit logs
  // no 401 in the browser's console. The cookie only (no permission, so no token is looked at);
  // GET /session keeps its 401 for other clients.
  app.get('/session/state', { schema: { hide: true } }, async (req) => {
    const cookieValue = req.cookies[SESSION_COOKIE];
    const found = cookieValue
      ? await ctx.store.sessionByHash(hashToken(cookieValue), new Date().toISOString())
      : undefined;
    if (!found) return { signedIn: false };
    return { signedIn: true, user: shownUser(found.user), csrfToken: found.session.csrfToken };
  });

  app.delete('/session', { config: { permission: 'tokens.manage-own' } }, async (req, reply) => {
    const id = req.cookies[SESSION_COOKIE];
    if (id) await ctx.store.deleteSession(hashToken(id));
    void reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.status(204).send();
  });
}

function shownUser(user: { id: string; name: string; role: string; solutions: readonly string[] }) {
  return { id: user.id, name: user.name, role: user.role, solutions: user.solutions };
}
