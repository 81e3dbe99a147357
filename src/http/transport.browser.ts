import type { AbortLike } from './abort.js';
import type { AddressGuard } from './address-guard.js';
import type { OutboundRequest } from './build-request.js';
import {
  AbortedError,
  NetworkError,
  RedirectLimitError,
  type RequestSummary,
  ResponseTooLargeError,
  TimeoutError,
} from './errors.js';
import type { HttpOptions } from './options.js';
import type { RequestBudget } from './request-budget.js';
import { isSensitiveHeader } from './sensitive.js';
import type { RawResponse } from './transport.js';

export type { RawResponse } from './transport.js';

/**
 * The browser build's transport: `fetch`, for the functions the client runs itself (`useLocalCall`).
 * The browser decides what Node's transport decides itself: it decodes content codings, follows
 * redirects (a request carrying credentials is not redirected at all here: `redirect: 'manual'`; the
 * browser would drop an Authorization header on another origin anyway), pools connections and
 * enforces CORS (the service must allow the app's origin). restfn keeps the rest: a credential only
 * goes to the origins bound to it, the request budget, the whole-request timeout and the size cap.
 */
export class Transport {
  constructor(
    private readonly options: HttpOptions,
    _guard?: AddressGuard,
  ) {}

  async send(
    req: OutboundRequest,
    summary: RequestSummary,
    signal?: AbortLike,
    budget?: RequestBudget,
  ): Promise<RawResponse> {
    const refs = req.refs;
    const guarded =
      (refs !== undefined && refs.size > 0) ||
      Object.keys(req.headers).some((name) => isSensitiveHeader(name));
    refs?.checkOrigin(req.url);
    budget?.spend(summary);
    const wire = refs ? refs.bind(req) : req;
    const aborts = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      aborts.abort();
    }, this.options.requestTimeoutMs);
    const passOn = () => aborts.abort(signal?.reason);
    if (signal?.aborted) passOn();
    else signal?.addEventListener('abort', passOn, { once: true });
    try {
      const res = await fetch(wire.url, {
        method: wire.method,
        headers: wire.headers,
        body:
          wire.body === undefined
            ? undefined
            : typeof wire.body === 'string'
              ? wire.body
              : new Uint8Array(wire.body),
        redirect: guarded ? 'manual' : 'follow',
        signal: aborts.signal,
        credentials: 'omit',
      });
      if (res.type === 'opaqueredirect')
        throw new RedirectLimitError(
          summary,
          'redirects, and the request carries credentials or sensitive headers: not followed in the browser',
        );
      const bytes = await readCapped(res, this.options.maxResponseBytes, summary);
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
      // The browser decoded the body already: the headers describe the bytes given.
      delete headers['content-encoding'];
      if (headers['content-length'] !== undefined) headers['content-length'] = String(bytes.length);
      return { status: res.status, statusText: res.statusText, headers, bytes };
    } catch (error) {
      if (error instanceof ResponseTooLargeError || error instanceof RedirectLimitError) throw error;
      if (timedOut && !signal?.aborted)
        throw new TimeoutError(summary, 'request', this.options.requestTimeoutMs, error);
      if ((error as Error)?.name === 'AbortError') throw new AbortedError(summary, error);
      // fetch says no more than "Failed to fetch": offline, refused, or refused by CORS.
      throw new NetworkError(
        summary,
        undefined,
        'the service could not be reached from this page (offline, refused, or its answer does not allow this origin: CORS)',
        error,
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', passOn);
    }
  }

  async close(): Promise<void> {}
}

/** The body up to `maxBytes`: a declared length over it is refused unread; reading stops past it. */
async function readCapped(res: Response, maxBytes: number, summary: RequestSummary): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    throw new ResponseTooLargeError(summary, maxBytes, declared);
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      throw new ResponseTooLargeError(summary, maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
