import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { authorizeTokensOf } from '../auth/authorize.js';
import { hashPassword } from '../auth/passwords.js';
import { hashToken, newToken } from '../auth/tokens.js';
import type { PlatformContext } from '../context.js';
import { PlatformError } from '../errors.js';
import { SOLUTION_NAME } from '../publish.js';
import { ROLES, type Role, type UserRecord } from '../store/types.js';

const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** What adding and changing a user take (besides the name). */
const USER_FIELDS = {
  role: { type: 'string', enum: [...ROLES] },
  solutions: { type: 'array', items: { type: 'string', pattern: SOLUTION_NAME.source }, maxItems: 1000 },
  password: { type: 'string', minLength: 12, maxLength: 1024 },
} as const;

/** A user as the API shows it: never the password hash. */
function shown(user: UserRecord) {
  return { id: user.id, name: user.name, role: user.role, solutions: user.solutions, created: user.created };
}

/**
 * Live API tokens one user may hold. Limits count per user, so more tokens buy no more requests;
 * the cap keeps a leaked or scripted account from filling the token table.
 */
export const MAX_LIVE_TOKENS = 50;

export function userRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  // The platform's own events (sign-ins, users, tokens, refused requests), for admins.
  app.get<{ Querystring: { limit?: number; action?: string; actor?: string; outcome?: string } }>(
    '/audit',
    {
      config: { permission: 'audit.read' },
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 1000 },
            action: { type: 'string', maxLength: 100 },
            actor: { type: 'string', maxLength: 100 },
            outcome: { type: 'string', maxLength: 100 },
          },
        },
      },
    },
    async (req) => {
      // Refusals counted so far are included: the list is never a minute behind.
      await ctx.denied.flush();
      const { limit = 100, action, actor, outcome } = req.query;
      return {
        entries: await ctx.auditLog.list(null, limit, {
          ...(action ? { action } : {}),
          ...(actor ? { actor } : {}),
          ...(outcome ? { outcome } : {}),
        }),
      };
    },
  );

  app.get('/me', { config: { permission: 'tokens.manage-own' } }, async (req) => shown(req.user));

  app.get('/users', { config: { permission: 'users.manage' } }, async () => ({
    users: (await ctx.store.listUsers()).map(shown),
  }));

  app.post<{ Body: { name: string; role: Role; solutions?: string[]; password?: string } }>(
    '/users',
    {
      config: { permission: 'users.manage' },
      schema: {
        body: {
          type: 'object',
          required: ['name', 'role'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', pattern: USER_NAME.source },
            ...USER_FIELDS,
          },
        },
      },
    },
    async (req, reply) => {
      const { name, role, solutions = [], password } = req.body;
      if (await ctx.store.userByName(name))
        throw new PlatformError(
          'USER_EXISTS',
          `user '${name}' exists already: change it with 'restfn users set ${name} ...' (PATCH /users/${name})`,
        );
      const user = await ctx.store.createUser({
        id: randomUUID(),
        name,
        role,
        solutions,
        passwordHash: password === undefined ? null : await hashPassword(password),
      });
      await ctx.audit(req, {
        solution: null,
        action: 'user.add',
        target: name,
        outcome: 'ok',
        correlationId: null,
        durationMs: null,
      });
      return reply.status(201).send(shown(user));
    },
  );

  app.patch<{ Params: { user: string }; Body: { role?: Role; solutions?: string[]; password?: string } }>(
    '/users/:user',
    {
      config: { permission: 'users.manage' },
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...USER_FIELDS,
          },
        },
      },
    },
    async (req) => {
      const target = await ctx.store.userByName(req.params.user);
      if (!target) throw new PlatformError('USER_NOT_FOUND', `no user '${req.params.user}'`);
      const { role, solutions, password } = req.body;
      await lastAdminGuard(ctx, target, role !== undefined && role !== 'admin');
      const updated = await ctx.store.updateUser(target.id, {
        ...(role !== undefined ? { role } : {}),
        ...(solutions !== undefined ? { solutions } : {}),
        ...(password !== undefined ? { passwordHash: await hashPassword(password) } : {}),
      });
      await ctx.audit(req, {
        solution: null,
        action: 'user.change',
        target: target.name,
        outcome: 'ok',
        correlationId: null,
        durationMs: null,
      });
      return shown(updated!);
    },
  );

  app.delete<{ Params: { user: string } }>(
    '/users/:user',
    { config: { permission: 'users.manage' } },
    async (req, reply) => {
      const target = await ctx.store.userByName(req.params.user);
      if (!target) throw new PlatformError('USER_NOT_FOUND', `no user '${req.params.user}'`);
      // Whoever removes a user must still be there to see it done (and to undo a mistake).
      if (target.id === req.user.id)
        throw new PlatformError(
          'SELF_REMOVAL',
          `'${target.name}' is you: another admin removes your user (restfn users remove ${target.name})`,
        );
      await lastAdminGuard(ctx, target, true);
      await ctx.store.deleteUser(target.id);
      // Their connections to providers go with them (their tokens are of no one else's use).
      await ctx.vault.dropUserConnections(target.id);
      await ctx.audit(req, {
        solution: null,
        action: 'user.remove',
        target: target.name,
        outcome: 'ok',
        correlationId: null,
        durationMs: null,
      });
      return reply.status(204).send();
    },
  );

  app.post<{ Params: { user: string }; Body: { name?: string } }>(
    '/users/:user/tokens',
    {
      config: { permission: 'tokens.manage-own' },
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
        },
      },
    },
    async (req, reply) => {
      const owner = await ownerOf(ctx, req.user, req.params.user);
      const live = (await ctx.store.listTokens(owner.id)).filter((t) => t.revoked === null).length;
      if (live >= MAX_LIVE_TOKENS) {
        throw new PlatformError(
          'TOKEN_LIMIT',
          `${owner.name} has ${live} live tokens, the most a user may hold: revoke unused ones first (restfn tokens list ${owner.name}, restfn tokens revoke ${owner.name} ID)`,
        );
      }
      const token = newToken();
      const record = await ctx.store.createToken(
        { id: randomUUID(), userId: owner.id, name: req.body?.name ?? 'cli' },
        hashToken(token),
      );
      await ctx.audit(req, {
        solution: null,
        action: 'token.create',
        target: owner.name,
        outcome: 'ok',
        correlationId: null,
        durationMs: null,
      });
      // The only time the token is shown.
      return reply.status(201).send({ ...record, user: owner.name, token });
    },
  );

  app.get<{ Params: { user: string } }>(
    '/users/:user/tokens',
    { config: { permission: 'tokens.manage-own' } },
    async (req) => {
      const owner = await ownerOf(ctx, req.user, req.params.user);
      return { tokens: await ctx.store.listTokens(owner.id) };
    },
  );

  app.delete<{ Params: { user: string; id: string } }>(
    '/users/:user/tokens/:id',
    { config: { permission: 'tokens.manage-own' } },
    async (req) => {
      const owner = await ownerOf(ctx, req.user, req.params.user);
      const tokens = await ctx.store.listTokens(owner.id);
      if (!tokens.some((t) => t.id === req.params.id)) {
        throw new PlatformError('TOKEN_NOT_FOUND', `user '${owner.name}' has no token ${req.params.id}`);
      }
      const revoked = await ctx.store.revokeToken(req.params.id);
      await ctx.audit(req, {
        solution: null,
        action: 'token.revoke',
        target: owner.name,
        outcome: 'ok',
        correlationId: null,
        durationMs: null,
      });
      return revoked;
    },
  );
}

/** The last admin cannot be removed or demoted: nobody could manage the platform any more. */
async function lastAdminGuard(ctx: PlatformContext, target: UserRecord, losesAdmin: boolean): Promise<void> {
  if (target.role === 'admin' && losesAdmin && (await ctx.store.countAdmins()) <= 1) {
    throw new PlatformError(
      'LAST_ADMIN',
      `'${target.name}' is the last admin: make another user admin first`,
    );
  }
}

async function ownerOf(ctx: PlatformContext, user: UserRecord, name: string): Promise<UserRecord> {
  const decision = authorizeTokensOf(user, name);
  if (!decision.allowed) throw new PlatformError('FORBIDDEN', decision.reason);
  const owner = await ctx.store.userByName(name);
  if (!owner) throw new PlatformError('USER_NOT_FOUND', `no user '${name}'`);
  return owner;
}
