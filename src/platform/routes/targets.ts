import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../context.js';
import { PlatformError } from '../errors.js';
import { SOLUTION_NAME } from '../publish.js';
import { allowedTargetHost } from '../ssrf.js';
import { hostsOf } from '../store/allowed-targets.js';

interface Target {
  readonly solution: string;
  readonly host: string;
  /** `flag`: `--allow-target` (changed by restarting); `api`: added here (kept in the store). */
  readonly from: 'flag' | 'api';
}

/**
 * The private targets solutions may call, changed while the platform runs (`restfn targets`):
 * admins only, each change audited, each host held to `--allow-target`'s rule. A change is seen at
 * the next execution on every instance of the same database (the store's `targets` change).
 */
export function targetRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  app.get('/targets', { config: { permission: 'targets.manage' } }, async () => {
    const { allowPrivateTargets, allowTargets } = ctx.allowedTargets.flags;
    const targets: Target[] = [];
    for (const [solution, hosts] of Object.entries(allowTargets))
      for (const host of hosts) targets.push({ solution, host, from: 'flag' });
    for (const [solution, hosts] of Object.entries(await ctx.allowedTargets.storedTargets()))
      for (const host of hosts) targets.push({ solution, host, from: 'api' });
    targets.sort((a, b) => a.solution.localeCompare(b.solution) || a.host.localeCompare(b.host));
    return { allowPrivateTargets, targets };
  });

  app.post<{ Body: { solution: string; host: string } }>(
    '/targets',
    {
      config: { permission: 'targets.manage' },
      schema: {
        body: {
          type: 'object',
          required: ['solution', 'host'],
          additionalProperties: false,
          properties: {
            solution: { type: 'string', maxLength: 64 },
            host: { type: 'string', minLength: 1, maxLength: 300 },
          },
        },
      },
    },
    async (req, reply) => {
      const { solution, host } = checked(req.body.solution, req.body.host);
      const added = await ctx.store.changeAllowedTarget(solution, host, true);
      await audit(ctx, req, 'target.add', solution, host);
      return reply.status(added ? 201 : 200).send({ solution, host, from: 'api', added });
    },
  );

  app.delete<{ Params: { solution: string; host: string } }>(
    '/targets/:solution/:host',
    { config: { permission: 'targets.manage' } },
    async (req) => {
      const { solution, host } = checked(req.params.solution, req.params.host);
      const removed = await ctx.store.changeAllowedTarget(solution, host, false);
      if (!removed) {
        const fromFlag = hostsOf(ctx.allowedTargets.flags.allowTargets, solution).includes(host);
        throw new PlatformError(
          'TARGET_NOT_FOUND',
          fromFlag
            ? `${host} is allowed for '${solution}' by the platform's --allow-target flag: restart the platform without it`
            : `${host} is not an allowed target of '${solution}' ('restfn targets list' shows them)`,
        );
      }
      await audit(ctx, req, 'target.remove', solution, host);
      return { solution, host, removed };
    },
  );
}

/** The solution's name and the host as `--allow-target` would take them, else REQUEST_INVALID. */
function checked(solution: string, host: string): { solution: string; host: string } {
  if (!SOLUTION_NAME.test(solution)) {
    throw new PlatformError(
      'REQUEST_INVALID',
      `solution: '${solution}' is not a solution name (letters, digits, '.', '_' and '-', at most 64)`,
    );
  }
  const target = allowedTargetHost(host);
  if ('problem' in target) throw new PlatformError('REQUEST_INVALID', `host: ${target.problem}`);
  return { solution, host: target.host };
}

async function audit(
  ctx: PlatformContext,
  req: Parameters<PlatformContext['audit']>[0],
  action: string,
  solution: string,
  host: string,
): Promise<void> {
  // The platform's own audit (an admin's change, like users and tokens), written as the flag is.
  await ctx.audit(req, {
    solution: null,
    action,
    target: `${solution}=${host}`,
    outcome: 'ok',
    correlationId: null,
    durationMs: null,
  });
}
