import type { ClientOptions } from '../protocol.js';
import { RestfnClient } from './client.js';

export type { ClientOptions, ClientStatus } from '../protocol.js';
export { type ChangeListener, RestfnClient, type StatusListener } from './client.js';
export { completeSignIn } from './popup.js';
export { RestfnClientError } from './rpc.js';

/**
 * A client of the published solution `options.solution` on the platform at `options.server`, with
 * its local database in this browser (OPFS, in a worker beside this module: worker.js). Works with
 * the platform unreachable once this device has read the solution (the copy kept beside the tables).
 */
export function createClient(options: ClientOptions): Promise<RestfnClient> {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'restfn' });
  return RestfnClient.start(options, worker);
}
