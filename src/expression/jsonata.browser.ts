import type Jsonata from 'jsonata';
import { RestfnError } from '../errors/restfn-error.js';

/**
 * JSONata in the browser, loaded at the first expression the client's worker evaluates rather than
 * with the worker (a sixth of what a page loads at start): opening the client, syncing a datasource
 * and querying its tables need none. Every evaluation awaits `loadJsonata()` first
 * (evaluateExpression), so the synchronous `jsonata` that compiling calls finds it there.
 */
let library: typeof Jsonata | undefined;

/** Whether JSONata is loaded: compiling may call `jsonata` synchronously. */
export function jsonataLoaded(): boolean {
  return library !== undefined;
}

/** Loads JSONata's chunk (once). */
export async function loadJsonata(): Promise<void> {
  library ??= (await import('jsonata')).default;
}

/** JSONata, once `loadJsonata()` has loaded it (jsonata.ts requires it lazily, for Node's start-up). */
export const jsonata = ((text: string, options?: Jsonata.JsonataOptions) => {
  if (!library)
    // A bug of restfn's: an expression compiled on a path that did not await loadJsonata() first.
    throw new RestfnError('INTERNAL', 'JSONata is not loaded yet: evaluations await loadJsonata() first');
  return library(text, options);
}) as typeof Jsonata;
