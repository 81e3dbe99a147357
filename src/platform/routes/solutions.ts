import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PlatformContext } from '../context.js';
import { PlatformError } from '../errors.js';
import { checkUpload, digestOf, SOLUTION_NAME } from '../publish.js';

/** The `:solution` path parameter: a solution name. */
export const SOLUTION_PARAMS = {
  type: 'object',
  required: ['solution'],
  properties: { solution: { type: 'string', pattern: SOLUTION_NAME.source } },
} as const;

/** Uploads are larger than other requests: a solution with its scripts. */
const PUBLISH_BODY_LIMIT = 32 * 1024 * 1024;

export function solutionRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  app.get('/solutions', { config: { permission: 'solutions.list' } }, async (req) => {
    const published = await ctx.store.listSolutions();
    const mine = (name: string) => req.user.role === 'admin' || req.user.solutions.includes(name);
    const names = new Set([...published.map((v) => v.solution), ...req.user.solutions].filter(mine));
    return {
      solutions: [...names].sort().map((name) => {
        const v = published.find((p) => p.solution === name);
        return v
          ? { name, version: v.version, published: v.created, publishedBy: v.createdBy }
          : { name, version: null };
      }),
    };
  });

  app.get<{ Params: { solution: string } }>(
    '/solutions/:solution',
    { config: { permission: 'solution.read' }, schema: { params: SOLUTION_PARAMS } },
    async (req) => {
      const { solution } = req.params;
      const current = await ctx.store.currentVersion(solution);
      if (!current)
        throw new PlatformError(
          'SOLUTION_NOT_PUBLISHED',
          `solution '${solution}' has no published version: run 'restfn publish'`,
        );
      const files = (await ctx.store.versionFiles(solution, current.version)) ?? {};
      const { names } = await ctx.runtimes.describe(solution);
      return {
        name: solution,
        version: current.version,
        published: current.created,
        publishedBy: current.createdBy,
        digest: current.digest,
        files: Object.keys(files).sort(),
        functions: names,
      };
    },
  );

  // The REST functions of the current version as the console lists and previews them: method, url,
  // and each parameter with its initial value (a credential parameter's value is its key).
  app.get<{ Params: { solution: string } }>(
    '/solutions/:solution/functions',
    { config: { permission: 'solution.read' }, schema: { params: SOLUTION_PARAMS } },
    async (req) => {
      const { version, functions } = await ctx.runtimes.describe(req.params.solution);
      return { version, functions };
    },
  );

  // One publish of a solution at a time (on this instance): a second one meanwhile is refused
  // before its body is read. Versions would race anyway, and each publish costs this thread the
  // upload's parsing and storing (its validation runs in the solution's worker).
  const publishing = new Set<string>();
  const busy = (solution: string) =>
    new PlatformError(
      'RATE_LIMITED',
      `a publish of solution '${solution}' is in progress; try again when it is done`,
      undefined,
      1,
    );
  app.put<{ Params: { solution: string }; Body: { files: unknown } }>(
    '/solutions/:solution',
    {
      config: { permission: 'solution.publish' },
      onRequest: async (req) => {
        if (publishing.has(req.params.solution)) throw busy(req.params.solution);
      },
      bodyLimit: PUBLISH_BODY_LIMIT,
      schema: {
        params: SOLUTION_PARAMS,
        body: { type: 'object', required: ['files'], properties: { files: { type: 'object' } } },
      },
    },
    async (req, reply) => {
      const { solution } = req.params;
      if (publishing.has(solution)) throw busy(solution);
      publishing.add(solution);
      try {
        return await publish(req, reply);
      } finally {
        publishing.delete(solution);
      }
    },
  );

  async function publish(
    req: FastifyRequest<{ Params: { solution: string }; Body: { files: unknown } }>,
    reply: FastifyReply,
  ) {
    const { solution } = req.params;
    const started = Date.now();
    const files = checkUpload(req.body.files);
    const { diagnostics, errors, warnings } = await ctx.runtimes.validate(solution, files);
    const findings = diagnostics.map((d) => ({ ...d, at: `${d.file}:${d.line}:${d.col}` }));
    const audited = (outcome: string, target: string | null) =>
      ctx.audit(req, {
        solution,
        action: 'publish',
        target,
        outcome,
        correlationId: null,
        durationMs: Date.now() - started,
      });
    if (errors > 0) {
      await audited('PUBLISH_INVALID', null);
      throw new PlatformError(
        'PUBLISH_INVALID',
        `solution '${solution}' has ${errors} error(s) and ${warnings} warning(s); nothing was published`,
        { findings },
      );
    }
    const digest = digestOf(files);
    const current = await ctx.store.currentVersion(solution);
    if (current?.digest === digest) {
      await audited('ok', `version ${current.version} (unchanged)`);
      return reply.status(200).send({ solution, version: current.version, unchanged: true, findings });
    }
    const version = await ctx.store.addVersion(solution, files, req.user.name, digest);
    await audited('ok', `version ${version.version}`);
    return reply.status(201).send({ solution, version: version.version, unchanged: false, findings });
  }

  app.get<{
    Params: { solution: string };
    Querystring: { limit?: number; function?: string; outcome?: string; correlationId?: string };
  }>(
    '/solutions/:solution/executions',
    {
      // A solution's own log: its authors see who published, changed credentials and called what.
      config: { permission: 'executions.read' },
      schema: {
        params: SOLUTION_PARAMS,
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 1000 },
            function: { type: 'string', maxLength: 200 },
            outcome: { type: 'string', maxLength: 100 },
            correlationId: { type: 'string', maxLength: 100 },
          },
        },
      },
    },
    async (req) => ({
      entries: await ctx.auditLog.list(req.params.solution, req.query.limit ?? 100, {
        ...(req.query.function ? { target: req.query.function } : {}),
        ...(req.query.outcome ? { outcome: req.query.outcome } : {}),
        ...(req.query.correlationId ? { correlationId: req.query.correlationId } : {}),
      }),
    }),
  );
}
