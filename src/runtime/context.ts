import type { Solution } from '../definition/solution.js';

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
  solution: { name: string; title: string | undefined; settings: { custom: Record<string, unknown> } };
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

export function createContext(
  solution: Solution,
  correlationId: string,
  user: Record<string, unknown>,
  call: CallContext,
): ExecutionContext {
  const settings = solution.settings?.definition;
  return {
    user,
    ...call,
    parameters: {},
    queries: {},
    correlationId,
    solution: {
      name: solution.name,
      title: settings?.title,
      settings: { custom: settings?.settings?.custom ?? {} },
    },
  };
}
