import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { Credential } from '../../auth/store.js';
import { printable } from '../../errors/printable.js';
import { normaliseOrigin } from '../../runtime/credential-origins.js';
import type { PlatformContext } from '../context.js';
import { PlatformError } from '../errors.js';
import { SOLUTION_NAME } from '../publish.js';

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const PARAMS = {
  type: 'object',
  required: ['solution', 'key'],
  properties: {
    solution: { type: 'string', pattern: SOLUTION_NAME.source },
    key: { type: 'string', pattern: KEY.source },
  },
} as const;

const httpUrl = z.url({ protocol: /^https?$/ });
/** Where the credential may be sent (`https://api.example.com`); default: see `originsOf`. */
const origins = z.array(z.string().max(300)).min(1).max(50).optional();

/** The kinds restfn has (conventions.md), as a body of `PUT .../credentials/{key}`. */
const CREDENTIAL = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('secret'), value: z.string().min(1).max(16_384), origins }),
  z.strictObject({ kind: z.literal('bearer'), token: z.string().min(1).max(16_384), origins }),
  z.strictObject({
    kind: z.literal('basic'),
    username: z.string().min(1).max(1024),
    password: z.string().max(16_384),
    origins,
  }),
  z.strictObject({
    kind: z.literal('oauth'),
    tokenEndpoint: httpUrl,
    authorizationEndpoint: httpUrl.optional(),
    issuer: z.string().optional(),
    clientId: z.string().min(1),
    clientSecret: z.string().optional(),
    scopes: z.array(z.string()).default([]),
    grantType: z.enum(['client_credentials', 'authorization_code']).default('client_credentials'),
    redirectUri: httpUrl.optional(),
    revocationEndpoint: httpUrl.optional(),
    origins,
  }),
]);

export function credentialRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  app.get<{ Params: { solution: string } }>(
    '/solutions/:solution/credentials',
    {
      config: { permission: 'credentials.manage' },
      schema: { params: { ...PARAMS, required: ['solution'] } },
    },
    async (req) => ({ credentials: await ctx.vault.list(req.params.solution) }),
  );

  // What a device needs to log in itself for `useLocalCall` functions (spec 5): the OAuth
  // configuration without its client secret. Tokens then stay in the device's own store.
  app.get<{ Params: { solution: string; key: string } }>(
    '/solutions/:solution/credentials/:key/oauth',
    { config: { permission: 'function.execute' }, schema: { params: PARAMS } },
    async (req) => {
      const { solution, key } = req.params;
      const found = (await ctx.vault.list(solution)).find((c) => c.key === key);
      if (found?.kind !== 'oauth') {
        throw new PlatformError(
          'CREDENTIAL_NOT_FOUND',
          `solution '${solution}' has no OAuth credential '${key}'`,
        );
      }
      const { hasClientSecret: _, ...config } = found.fields as Record<string, unknown>;
      return { kind: 'oauth', ...config };
    },
  );

  app.put<{ Params: { solution: string; key: string }; Body: unknown }>(
    '/solutions/:solution/credentials/:key',
    { config: { permission: 'credentials.manage' }, schema: { params: PARAMS } },
    async (req, reply) => {
      const { solution, key } = req.params;
      const parsed = CREDENTIAL.safeParse(req.body);
      if (!parsed.success) {
        // The issue's path and message only: never the value that was sent.
        const issue = parsed.error.issues[0]!;
        throw new PlatformError(
          'REQUEST_INVALID',
          `credential '${key}': ${issue.path.join('.') || 'body'}: ${issue.message} (kinds: secret {value}, bearer {token}, basic {username, password}, oauth {tokenEndpoint, clientId, clientSecret?, scopes?, grantType?}; each with origins?)`,
        );
      }
      const bound = await originsOf(ctx, solution, key, parsed.data.origins);
      const existed = (await ctx.store.getCredential(solution, key)) !== undefined;
      // A bearer token alone: a pasted `Bearer ...` keeps what follows (the scheme is added when sent).
      const given =
        parsed.data.kind === 'bearer'
          ? { ...parsed.data, token: parsed.data.token.replace(/^bearer\s+/i, '') }
          : parsed.data;
      const audited = (outcome: string) =>
        ctx.audit(req, {
          solution,
          action: 'credential.put',
          target: key,
          outcome,
          correlationId: null,
          durationMs: null,
        });
      let dropped: number;
      try {
        dropped = await ctx.vault.put(solution, key, { ...given, origins: bound } as Credential, {
          name: req.user.name,
          admin: req.user.role === 'admin',
        });
      } catch (error) {
        // A refused change (in use, an origin added by an author) is audited: who tried what.
        if (error instanceof PlatformError) await audited(error.code);
        throw error;
      }
      await audited('ok');
      const shown = (await ctx.vault.list(solution)).find((c) => c.key === key);
      return reply
        .status(existed ? 200 : 201)
        .send({ ...shown, origins: bound, ...(dropped > 0 ? { connectionsDropped: dropped } : {}) });
    },
  );

  app.delete<{ Params: { solution: string; key: string } }>(
    '/solutions/:solution/credentials/:key',
    { config: { permission: 'credentials.manage' }, schema: { params: PARAMS } },
    async (req, reply) => {
      const { solution, key } = req.params;
      const removed = await ctx.vault.delete(solution, key);
      await ctx.audit(req, {
        solution,
        action: 'credential.delete',
        target: key,
        outcome: removed ? 'ok' : 'CREDENTIAL_NOT_FOUND',
        correlationId: null,
        durationMs: null,
      });
      if (!removed)
        throw new PlatformError('CREDENTIAL_NOT_FOUND', `solution '${solution}' has no credential '${key}'`);
      return reply.status(204).send();
    },
  );
}

/**
 * The origins a credential is bound to, sealed with it: those given, else those of the published
 * functions that name it (so publishing a function later never widens its reach: only storing the
 * credential again does).
 */
async function originsOf(
  ctx: PlatformContext,
  solution: string,
  key: string,
  given: readonly string[] | undefined,
): Promise<string[]> {
  if (given) {
    return [
      ...new Set(
        given.map((text, i) => {
          const origin = normaliseOrigin(text);
          if (origin === undefined) {
            throw new PlatformError(
              'REQUEST_INVALID',
              `credential '${key}': origins.${i}: '${printable(text)}' is not an origin; write scheme://host[:port], such as https://api.example.com`,
            );
          }
          return origin;
        }),
      ),
    ];
  }
  // Read from the definitions, in the solution's worker.
  const found = await ctx.runtimes.run(solution, { kind: 'origins', key }).then(
    ({ value }) => value as { origins: string[]; unresolved: string[] },
    (error: unknown) => {
      if (error instanceof PlatformError && error.code === 'SOLUTION_NOT_PUBLISHED')
        return { origins: [], unresolved: [] };
      throw error;
    },
  );
  if (found.origins.length === 0) {
    const why =
      found.unresolved.length > 0
        ? `the functions that name it (${found.unresolved.join(', ')}) take their address from a caller or an expression`
        : `no published function of '${solution}' names it yet`;
    throw new PlatformError(
      'REQUEST_INVALID',
      `credential '${key}': ${why}; say where it may be sent: origins ["https://api.example.com"] (restfn credentials set ${key} --server --origin URL)`,
    );
  }
  return found.origins;
}
