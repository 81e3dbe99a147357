import type { Dispatcher } from 'undici';
import { RestfnError } from '../errors/restfn-error.js';
import { Abort, type AbortLike } from './abort.js';
import { type AddressGuard, checkLiteral, guardedConnect } from './address-guard.js';
import type { OutboundRequest } from './build-request.js';
import { ACCEPTED_CODINGS, decodeContent } from './content-coding.js';
import {
  AbortedError,
  NetworkError,
  RedirectLimitError,
  type RequestSummary,
  TargetRefusedError,
  TimeoutError,
} from './errors.js';
import type { HttpOptions } from './options.js';
import { readCappedBody } from './read-body.js';
import type { RequestBudget } from './request-budget.js';
import { isSensitiveHeader } from './sensitive.js';
import { statusText } from './status-text.js';
import { deadlineAfter } from './timers.js';
import { Agent, request } from './undici-parts.js';

export interface RawResponse {
  readonly status: number;
  readonly statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Record<string, string>;
  readonly bytes: Buffer;
}

/**
 * Outbound HTTP on undici with one shared connection pool per runtime, the solution's timeouts,
 * bounded redirects, and abort support. Failures become restfn errors here, at the boundary.
 */
export class Transport {
  private readonly dispatcher: Dispatcher;

  constructor(
    private readonly options: HttpOptions,
    /** Checks every address a request (or a redirect) connects to; the platform's SSRF guard. */
    private readonly guard?: AddressGuard,
  ) {
    const agent = new Agent({
      connect: guard
        ? guardedConnect(guard, options.connectTimeoutMs)
        : { timeout: options.connectTimeoutMs },
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      connections: options.connections,
    });
    this.dispatcher = agent;
  }

  /**
   * Sends the request and reads the whole body, within `requestTimeoutMs` for all of it and at most
   * `maxResponseBytes` of body. `summary` names the request in errors (masked URL).
   * Redirects (300-303, 307, 308 with a location) are followed here, up to `maxRedirections`, never
   * back to an address already visited (undici's redirect interceptor, which did this before,
   * costs several handler objects per request, redirected or not). A request that carries
   * credentials, or any header the trace masks as sensitive (`x-token`, `cookie`: one rule,
   * `isSensitiveHeader`), follows redirects only within its origin.
   */
  async send(
    req: OutboundRequest,
    summary: RequestSummary,
    signal?: AbortLike,
    /** The execution's requests left: every hop spends one (past it, REQUEST_LIMIT). */
    budget?: RequestBudget,
  ): Promise<RawResponse> {
    const limit = this.options.maxRedirections;
    const refs = req.refs;
    // The other timeouts bound one wait each; this bounds the whole request (a slow drip included).
    const aborts = new Abort();
    let timedOut = false;
    const timer = deadlineAfter(this.options.requestTimeoutMs, () => {
      timedOut = true;
      aborts.abort(undefined);
    });
    // The caller's abort is passed on by a listener removed at the end (AbortSignal.any costs a
    // signal tracked with weak references per request).
    const passOn = () => aborts.abort(signal?.reason);
    if (signal?.aborted) passOn();
    else signal?.addEventListener('abort', passOn, { once: true });
    // Redirects followed so far: a refused target after one is the redirect's, not the request's.
    let hops = 0;
    try {
      let current = req;
      let visited: Set<string> | undefined;
      for (; ; hops++) {
        // A host that is an IP needs no lookup, so the guard sees it here (every hop).
        const refused = this.guard && checkLiteral(this.guard, new URL(current.url));
        if (refused) throw new TargetRefusedError(summary, refused, { redirected: hops > 0 });
        // Every hop, here where requests leave: a credential goes only to the origins it is bound to,
        // and only the bytes on the wire hold its value.
        refs?.checkOrigin(current.url);
        budget?.spend(summary);
        const wire = refs ? refs.bind(current) : current;
        const res = await request(wire.url, {
          dispatcher: this.dispatcher,
          method: wire.method as Dispatcher.HttpMethod,
          // The codings restfn decodes, and only those: a function cannot ask for others
          // (HEADER_RESERVED; build-request drops the header from versions published before).
          headers: { ...wire.headers, 'accept-encoding': ACCEPTED_CODINGS },
          body: wire.body,
          signal: aborts as unknown as AbortSignal,
        });
        const bytes = await readCappedBody(
          res.body,
          res.headers['content-length'],
          this.options.maxResponseBytes,
          summary,
        );
        const location = res.headers.location;
        if (REDIRECTS.has(res.statusCode) && location !== undefined) {
          if (hops >= limit) {
            throw new RedirectLimitError(
              summary,
              `redirected more than ${limit} times (settings.http.maxRedirections)`,
            );
          }
          const from = new URL(current.url);
          const next = URL.parse(String(location), from.href);
          // The request itself was checked to be http(s); only a redirect can name `file:` or `ftp:`.
          if (next === null || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
            throw new RedirectLimitError(
              summary,
              'redirects to an address that is not a valid http or https address; not followed',
            );
          }
          if (next.origin !== from.origin && carriesSecrets(req)) {
            throw new RedirectLimitError(
              summary,
              `redirects to another origin (${next.origin}); not followed because the request carries credentials or sensitive headers`,
            );
          }
          visited ??= new Set([from.href]);
          if (visited.has(next.href)) {
            throw new RedirectLimitError(
              summary,
              'redirects back to an address it already visited (a redirect loop)',
            );
          }
          visited.add(next.href);
          current = redirected(current, next.href, res.statusCode);
          continue;
        }
        const headers = flatten(res.headers);
        // Decoded before anything reads the body; the headers then describe the bytes given, so no
        // one downstream sees the coded size (a compression side channel: docs/server.md).
        const coding = headers['content-encoding'];
        if (coding === undefined)
          return { status: res.statusCode, statusText: statusText(res.statusCode), headers, bytes };
        const decoded = await decodeContent(bytes, coding, this.options.maxResponseBytes, summary);
        delete headers['content-encoding'];
        if (headers['content-length'] !== undefined) headers['content-length'] = String(decoded.length);
        return { status: res.statusCode, statusText: statusText(res.statusCode), headers, bytes: decoded };
      }
    } catch (error) {
      if (timedOut && !signal?.aborted) {
        throw new TimeoutError(summary, 'request', this.options.requestTimeoutMs, error);
      }
      throw this.translate(error, summary, hops > 0);
    } finally {
      timer.clear();
      signal?.removeEventListener('abort', passOn);
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private translate(error: unknown, summary: RequestSummary, redirected: boolean): unknown {
    // Raised here already (redirect limits, a body over the size limit, a credential's origin):
    // nothing to translate.
    if (error instanceof RestfnError) return error;
    // By undici's stable error codes (lib/core/errors.js), not classes or message texts: a second
    // copy of undici (a bundle, a nested install) has other classes with the same codes.
    const code = (error as { code?: string })?.code;
    switch (code) {
      case 'UND_ERR_CONNECT_TIMEOUT':
        return new TimeoutError(summary, 'connect', this.options.connectTimeoutMs, error);
      case 'UND_ERR_HEADERS_TIMEOUT':
        return new TimeoutError(summary, 'headers', this.options.headersTimeoutMs, error);
      case 'UND_ERR_BODY_TIMEOUT':
        return new TimeoutError(summary, 'body', this.options.bodyTimeoutMs, error);
      case 'UND_ERR_ABORTED':
      case 'ABORT_ERR':
        return new AbortedError(summary, error);
      case 'TARGET_REFUSED':
        return new TargetRefusedError(summary, (error as Error).message, { cause: error, redirected });
    }
    if ((error as Error)?.name === 'AbortError') return new AbortedError(summary, error);
    const detail =
      code === 'UND_ERR_SOCKET'
        ? 'the connection closed before the response was complete'
        : systemDetail(code, error);
    return new NetworkError(summary, code, detail, error);
  }
}

/**
 * Whether a request carries credentials or a header the trace masks as sensitive: then it follows
 * redirects only within its origin. Asked at a redirect, not for every request (issue 41).
 */
function carriesSecrets(req: OutboundRequest): boolean {
  return (
    (req.refs !== undefined && req.refs.size > 0) ||
    Object.keys(req.headers).some((name) => isSensitiveHeader(name))
  );
}

/** The statuses whose `location` is followed (as undici's redirect handler does). */
const REDIRECTS: ReadonlySet<number> = new Set([300, 301, 302, 303, 307, 308]);

/**
 * The request a redirect asks for, as fetch (and undici) do it: a 303, and a POST answered by 301
 * or 302, become a GET without a body and without the header fields that described the body (RFC
 * 9110 section 15.4); every other redirect repeats the request.
 */
function redirected(req: OutboundRequest, url: string, status: number): OutboundRequest {
  const toGet =
    status === 303 ? req.method !== 'HEAD' : (status === 301 || status === 302) && req.method === 'POST';
  if (!toGet) return { ...req, url };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (!CONTENT_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  return { method: 'GET', url, headers, body: undefined };
}

/** The content-specific header fields RFC 9110 section 15.4 says to remove when the method becomes GET. */
const CONTENT_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
  'digest',
  'last-modified',
]);

function systemDetail(code: string | undefined, error: unknown): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the service running?)';
    case 'ECONNRESET':
      return 'connection reset by the service';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name could not be resolved';
    default:
      return (error as Error)?.message ?? String(error);
  }
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
