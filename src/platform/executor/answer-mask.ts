import type { SecretCollector } from '../../runtime/call.js';
import { maskJson, maskText } from '../../runtime/mask.js';
import type { WireError } from './protocol.js';

// The one masking pass at the edge: what a worker or a sandbox process answers (an output, a page,
// a trace, an error's texts) is masked against every credential text its task's calls used, in
// whatever field it ended up. The runtime masked each response as it came in; this pass is what
// holds when anything reached the answer by another way.

/** An answer masked against the credential texts its task used (nothing to do when it used none). */
export function maskAnswer(value: unknown, collect: SecretCollector): unknown {
  return collect.size === 0 ? value : maskJson(value, [...collect]);
}

/** A failure as it leaves the worker: its message and every shown field masked alike. */
export function maskWire(wire: WireError, collect: SecretCollector): WireError {
  if (collect.size === 0) return wire;
  const secrets = [...collect];
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(wire.fields))
    fields[name] = typeof value === 'string' ? maskText(value, secrets) : maskJson(value, secrets);
  return {
    ...wire,
    message: maskText(wire.message, secrets),
    fields,
    // A bug's stack goes to the log: masked alike (a message in it may quote a value).
    ...(wire.stack === undefined ? {} : { stack: maskText(wire.stack, secrets) }),
  };
}
