import type * as Undici from 'undici';
import apiRequest from 'undici/lib/api/api-request.js';
import connect from 'undici/lib/core/connect.js';
import coreErrors from 'undici/lib/core/errors.js';
import util from 'undici/lib/core/util.js';
import agent from 'undici/lib/dispatcher/agent.js';

// The parts of undici restfn uses, imported by file (issue 11). undici's index loads every part of
// the package (111 files: fetch, WebSocket, caches, mocks, proxies), which was a third of the start-up
// of a `restfn run`; the agent, its `request` and the error classes are 40 of them. The price is
// depending on undici's file layout, which is not public API: test/http/undici-parts.test.ts compares
// these with the package index's own, so an upgrade that moves them fails there, not at run time.

/** undici's `Agent` (lib/dispatcher/agent.js). */
export const Agent = agent as typeof Undici.Agent;

/** undici's `buildConnector` (lib/core/connect.js): how an agent opens its sockets. */
export const buildConnector = connect as typeof Undici.buildConnector;

/** undici's error classes (lib/core/errors.js). */
export const errors = coreErrors as typeof Undici.errors;

/**
 * undici's top-level `request(url, options)` for an absolute URL string, as the package index builds
 * it (`makeDispatcher(api.request)`): the request API called on the given dispatcher. The index also
 * adds that API to `Dispatcher.prototype`, which these parts leave alone.
 */
export function request(
  url: string,
  options: Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
    dispatcher: Undici.Dispatcher;
    method: Undici.Dispatcher.HttpMethod;
  },
): Promise<Undici.Dispatcher.ResponseData> {
  const parsed: URL = util.parseURL(url);
  const { dispatcher, ...rest } = options;
  return apiRequest.call(dispatcher, {
    ...rest,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
  });
}
