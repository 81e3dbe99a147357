import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUDIT_KINDS, type AuditKind, kindFilter } from '../audit-kinds.js';
import type { PlatformContext } from '../context.js';
import { PlatformError } from '../errors.js';
import { checkUpload, digestOf, SOLUTION_NAME } from '../publish.js';

/** The `:solution` path parameter: a solution name. */
export const SOLUTION_PARAMS = {
  type: 'object',
  required: ['solution'],
  properties: { solution: { type: 'string', pattern: SOLUTION_NAME.source } },
} as const;

/** `:solution/versions/:version`. */
const VERSION_PARAMS = {
  type: 'object',
  required: ['solution', 'version'],
  properties: {
    ...SOLUTION_PARAMS.properties,
    version: { type: 'integer', minimum: 1, maximum: 2147483647 },
  },
} as const;

/** What the solutions page says of a version: its title (solution.yaml) and how many functions. */
function summaryOf(files: Readonly<Record<string, string>>): { title?: string; functions: number } {
  const functions = Object.keys(files).filter(
    (p) => p.startsWith('functions/') && p.endsWith('.platform'),
  ).length;
  // The title line alone, read as text (no YAML parse, no backtracking pattern: a line of any
  // length costs its length), cut to what a list shows.
  const line = /^title:(.*)$/m.exec(files['solution.yaml'] ?? '')?.[1];
  const title = line
    ?.trim()
    .replace(/^(['"])(.*)\1$/, '$2')
    .slice(0, 200);
  return title ? { title, functions } : { functions };
}

/** Uploads are larger than other requests: a solution with its scripts. */
const PUBLISH_BODY_LIMIT = 32 * 1024 * 1024;

export function solutionRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  app.get('/solutions', { config: { permission: 'solutions.list' } }, async (req) => {
    const published = await ctx.store.listSolutions();
    const mine = (name: string) => req.user.role === 'admin' || req.user.solutions.includes(name);
    const names = new Set([...published.map((v) => v.solution), ...req.user.solutions].filter(mine));
    return {
      solutions: await Promise.all(
        [...names].sort().map(async (name) => {
          const v = published.find((p) => p.solution === name);
          if (!v) return { name, version: null };
          return {
            name,
            version: v.version,
            published: v.created,
            publishedBy: v.createdBy,
            ...(await summary(name, v.version)),
          };
        }),
      ),
    };
  });

  // A version never changes: its summary is read from its files once (they may be megabytes).
  const summaries = new Map<string, Promise<{ title?: string; functions: number }>>();
  function summary(solution: string, version: number) {
    const key = `${solution}@${version}`;
    let found = summaries.get(key);
    if (!found) {
      if (summaries.size >= 1000) summaries.clear();
      found = ctx.store.versionFiles(solution, version).then((files) => summaryOf(files ?? {}));
      found.catch(() => summaries.delete(key));
      summaries.set(key, found);
    }
    return found;
  }

  // History: every version of a solution, and one version's files (for a diff); read as the
  // definitions are (solution.read). Republishing an older one is a publish (below).
  app.get<{ Params: { solution: string } }>(
    '/solutions/:solution/versions',
    { config: { permission: 'solution.read' }, schema: { params: SOLUTION_PARAMS } },
    async (req) => ({
      versions: (await ctx.store.listVersions(req.params.solution)).map((v) => ({
        version: v.version,
        published: v.created,
        publishedBy: v.createdBy,
        digest: v.digest,
        size: v.size,
        // Its files are gone (`--keep-versions`): when, and by whom (`retention`).
        ...(v.removed ? { removed: v.removed.at, removedBy: v.removed.by } : {}),
      })),
    }),
  );
  app.get<{ Params: { solution: string; version: number } }>(
    '/solutions/:solution/versions/:version',
    { config: { permission: 'solution.read' }, schema: { params: VERSION_PARAMS } },
    async (req) => {
      const { solution, version } = req.params;
      return { solution, version, files: await filesOf(solution, version) };
    },
  );

  async function filesOf(solution: string, version: number): Promise<Record<string, string>> {
    const files = await ctx.store.versionFiles(solution, version);
    if (files) return files;
    const removed = (await ctx.store.listVersions(solution)).find((v) => v.version === version)?.removed;
    if (removed) {
      throw new PlatformError(
        'VERSION_REMOVED',
        `version ${version} of solution '${solution}' was removed by ${removed.by} at ${removed.at} (the platform keeps the last versions: restfn serve --keep-versions); its files are gone, its row stays in the history. Publish from a copy of its files instead`,
      );
    }
    throw new PlatformError('SOLUTION_NOT_PUBLISHED', `solution '${solution}' has no version ${version}`);
  }

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
      const { version, functions, datasources, actions } = await ctx.runtimes.describe(req.params.solution);
      return { version, functions, datasources, actions };
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
    async (req, reply) =>
      oneAtATime(req.params.solution, () => publish(req, reply, checkUpload(req.body.files))),
  );

  // "Publish this version again": an older version's files as a new version, validated and audited
  // as any publish (its target says which version it came from).
  app.post<{ Params: { solution: string; version: number } }>(
    '/solutions/:solution/versions/:version/publish',
    { config: { permission: 'solution.publish' }, schema: { params: VERSION_PARAMS } },
    async (req, reply) => {
      const { solution, version } = req.params;
      return oneAtATime(solution, async () =>
        publish(req, reply, await filesOf(solution, version), `from version ${version}`),
      );
    },
  );

  async function oneAtATime<T>(solution: string, work: () => Promise<T>): Promise<T> {
    if (publishing.has(solution)) throw busy(solution);
    publishing.add(solution);
    try {
      return await work();
    } finally {
      publishing.delete(solution);
    }
  }

  async function publish(
    req: FastifyRequest<{ Params: { solution: string } }>,
    reply: FastifyReply,
    files: Record<string, string>,
    from?: string,
  ) {
    const { solution } = req.params;
    const started = Date.now();
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
    let version: Awaited<ReturnType<typeof ctx.store.addVersion>>;
    try {
      // Held to the quota, and versions past --keep-versions go (not those running here now).
      version = await ctx.store.addVersion(
        solution,
        files,
        req.user.name,
        digest,
        ctx.retention.limits(solution),
      );
    } catch (error) {
      if (error instanceof PlatformError && error.code === 'SOLUTION_QUOTA')
        await audited('SOLUTION_QUOTA', null);
      throw error;
    }
    ctx.retention.published(solution, version.version);
    await audited('ok', `version ${version.version}${from ? ` (${from})` : ''}`);
    await ctx.retention.removed(solution, version.removedVersions);
    ctx.runtimes.prepare(solution);
    return reply.status(201).send({ solution, version: version.version, unchanged: false, findings });
  }

  app.get<{
    Params: { solution: string };
    Querystring: {
      limit?: number;
      function?: string;
      outcome?: string;
      correlationId?: string;
      kind?: AuditKind;
    };
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
            // executions: what ran; changes: publishes, credentials, connections, versions removed.
            kind: { type: 'string', enum: [...AUDIT_KINDS] },
          },
        },
      },
    },
    async (req) => ({
      entries: await ctx.auditLog.list(req.params.solution, req.query.limit ?? 100, {
        ...kindFilter(req.query.kind),
        ...(req.query.function ? { target: req.query.function } : {}),
        ...(req.query.outcome ? { outcome: req.query.outcome } : {}),
        ...(req.query.correlationId ? { correlationId: req.query.correlationId } : {}),
      }),
    }),
  );
}
