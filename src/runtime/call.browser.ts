import type { CallArgs, CallResult } from './call.js';

export type { CallArgs, CallResult, SecretCollector } from './call.js';

/**
 * The browser's call step, loaded at its first use: in the client's worker only `useLocalCall`
 * functions make their HTTP call here (the platform runs every other call step), so the request
 * building, retries, body parsing and masking behind it are a chunk of their own rather than part
 * of what a page loads at start. (The build's plugin lets a sibling import the module it stands for.)
 */
export async function callWithRetries(args: CallArgs): Promise<CallResult> {
  const call = await import('./call.js');
  return call.callWithRetries(args);
}
