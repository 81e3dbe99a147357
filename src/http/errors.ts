import { RestfnError } from '../errors/restfn-error.js';

/** What an error says about the request: method and the URL with credentials masked. */
export interface RequestSummary {
  readonly method: string;
  readonly url: string;
}

/**
 * The call reached (or tried to reach) the remote service and failed. Request and response details
 * are non-enumerable, so serialising or logging the error never carries them (they may hold
 * credentials or personal data); read them explicitly when needed.
 */
export class CallError extends RestfnError {
  declare readonly request: RequestSummary;
  correlationId: string | undefined;
  attempts = 1;

  constructor(code: string, message: string, request: RequestSummary, options?: { cause?: unknown }) {
    super(code, message, options);
    Object.defineProperty(this, 'request', { value: request, enumerable: false });
  }
}

export interface RemoteResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** The remote service answered with an error status (the provider's default check: status >= 400). */
export class RemoteError extends CallError {
  readonly status: number;
  readonly statusText: string;
  declare readonly response: RemoteResponse;

  constructor(request: RequestSummary, response: RemoteResponse) {
    super(
      'REMOTE_ERROR',
      `${request.method} ${request.url} answered ${response.status} ${response.statusText}`.trim(),
      request,
    );
    this.status = response.status;
    this.statusText = response.statusText;
    Object.defineProperty(this, 'response', { value: response, enumerable: false });
  }
}

/** No usable answer: connection refused or reset, DNS failure, socket closed mid-body. */
export class NetworkError extends CallError {
  /** The underlying system or undici code, for example `ECONNREFUSED` or `UND_ERR_SOCKET`. */
  readonly causeCode: string | undefined;

  constructor(request: RequestSummary, causeCode: string | undefined, detail: string, cause?: unknown) {
    super('NETWORK_ERROR', `${request.method} ${request.url} failed: ${detail}`, request, { cause });
    this.causeCode = causeCode;
  }
}

export type TimeoutPhase = 'connect' | 'headers' | 'body';

export class TimeoutError extends CallError {
  readonly phase: TimeoutPhase;

  constructor(request: RequestSummary, phase: TimeoutPhase, limitMs: number, cause?: unknown) {
    super(
      'TIMEOUT',
      `${request.method} ${request.url} timed out waiting for the ${phase === 'connect' ? 'connection' : `response ${phase}`} (limit ${limitMs} ms; raise settings.http.${phase}TimeoutMs in solution.yaml)`,
      request,
      { cause },
    );
    this.phase = phase;
  }
}

/** Too many redirects, or a redirect back to the same address. */
export class RedirectLimitError extends CallError {
  constructor(request: RequestSummary, detail: string) {
    super('REDIRECT_LIMIT', `${request.method} ${request.url} ${detail}`, request);
  }
}

/** The response body does not match the function's `format`. */
export class ResponseFormatError extends CallError {
  readonly format: string;
  /** The first bytes of the body, printable characters only. */
  readonly excerpt: string;

  constructor(request: RequestSummary, format: string, excerpt: string, detail: string) {
    super(
      'RESPONSE_FORMAT',
      `${request.method} ${request.url}: the response is not valid ${format} (${detail}); it starts with: ${JSON.stringify(excerpt)}. Set 'format' to match what the service returns`,
      request,
    );
    this.format = format;
    this.excerpt = excerpt;
  }
}

export class AbortedError extends CallError {
  constructor(request: RequestSummary, cause?: unknown) {
    super('ABORTED', `${request.method} ${request.url} was aborted`, request, { cause });
  }
}
