import type { CallContext } from './context.js';

/**
 * The inputs a screen opens with, read alike as `@ctx.inputs.x` and `@ctx.jig.inputs.x`: the
 * platform's samples write both, and callers give either (a preview's `context.jig.inputs`, a
 * device's `context.inputs`). Both come back as one map, `inputs` over `jig.inputs` where a name is
 * in both. A context that gives neither is returned as it is.
 */
export function withInputs(call: CallContext): CallContext {
  const jig = objectOr(call.jig);
  const fromJig = objectOr(jig?.inputs);
  const direct = objectOr(call.inputs);
  if (!fromJig && !direct) return call;
  const inputs = { ...fromJig, ...direct };
  return { ...call, inputs, jig: { ...jig, inputs } };
}

/** The inputs a context gives (after `withInputs`, the same map either way). */
export function inputsOf(call: CallContext): Readonly<Record<string, unknown>> {
  return objectOr(call.inputs) ?? objectOr(objectOr(call.jig)?.inputs) ?? {};
}

function objectOr(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
