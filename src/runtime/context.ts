import type { Solution } from '../definition/solution.js';
import type { Clock } from '../errors/clock.js';
import { NAMED_EXPRESSIONS, namedExpressionsOf } from './named-expressions.js';
import type { ContextAbout } from './options.js';
import { type SystemContext, type SystemSettings, systemContext } from './system-context.js';

/** What a caller (CLI, datasource, action) adds to `@ctx`: `entity`, `commandId`, `user`, `current`, ... */
export type CallContext = Readonly<Record<string, unknown>>;

/**
 * `@ctx` of one execution (conventions.md lists what it carries). Steps fill it in as they go:
 * parameters, queries, request, response, output.
 */
export interface ExecutionContext {
  [key: string]: unknown;
  parameters: Record<string, unknown>;
  queries: Record<string, unknown>;
  correlationId: string;
  user: Record<string, unknown>;
  solution: {
    id: string;
    name: string;
    title: string | undefined;
    settings: { custom: Record<string, unknown> };
  };
  organization: { id?: string; name?: string };
  system: SystemContext;
  /** The solution's named expressions: each read evaluates it (named-expressions.ts). */
  expressions: Record<string, unknown>;
  request?: { method: string; url: string; headers: Record<string, string>; body: unknown };
  response?: {
    ok: boolean;
    status: number;
    statusText: string;
    headers: Record<string, string>;
    body: unknown;
  };
  output?: unknown;
  guard?: { output: unknown; error?: { name: string; message: string } };
  /** Set after an attempt that got no usable answer: the error's code and message. */
  error?: { name: string; message: string } | undefined;
}

/** What of the runtime's options a context is made from. */
export interface ContextOptions {
  readonly user: Record<string, unknown>;
  readonly about: ContextAbout;
  readonly clock: Clock;
}

/**
 * The caller's context may say which time zone and locale its screen is in (`system.timezone`,
 * `system.locale`, as an app reports its device's); the runtime's fill in the rest. The solution's
 * id and organization are the runtime's alone: a caller cannot claim another solution's.
 */
export function createContext(
  solution: Solution,
  correlationId: string,
  options: ContextOptions,
  call: CallContext,
): ExecutionContext {
  const settings = solution.settings?.definition;
  const { about } = options;
  const given = (call.system ?? {}) as SystemSettings & Record<string, unknown>;
  const ctx: ExecutionContext = {
    user: options.user,
    ...call,
    parameters: {},
    queries: {},
    correlationId,
    solution: {
      id: about.solutionId,
      name: solution.name,
      title: settings?.title,
      settings: { custom: settings?.settings?.custom ?? {} },
    },
    organization: { ...about.organization },
    system: systemContext(given, about.system, options.clock),
    expressions: {},
  };
  // Where a read of `@ctx.expressions.<name>` finds the expression (field.ts): off the data.
  const named = namedExpressionsOf(solution);
  if (named) Object.defineProperty(ctx, NAMED_EXPRESSIONS, { value: named });
  return ctx;
}
