import type { ErrorCode } from '../errors/codes.js';
import { CredentialError } from '../errors/credential-error.js';
import { printable } from '../errors/printable.js';
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
  /** The error handler that matched (1-based), when one did. */
  handler: number | undefined;
  /** Spec 7.1: the handler's title and description, else the provider's. */
  title: string | undefined;
  description: string | undefined;
  // What follows may hold a service's words or a person's data: kept off the enumerable fields, so
  // serialising or logging the error never carries them (see `report`).
  /** The handler's `details`, else the response body: masked and bounded. */
  declare readonly details: string | undefined;
  /** Where `details` came from: the CLI shows a response body only once. */
  declare readonly detailsFrom: 'handler' | 'response' | undefined;
  /** The start of the response body (masked, 2 KB at most). */
  declare readonly bodyExcerpt: string | undefined;
  /** The older `errorTransform`'s result: what the failed function gives back. */
  declare readonly output: unknown;
  /** The alert the failure raised (spec 7.2), for a caller far from the device. */
  declare readonly alert: unknown;
  /** Problems of reporting the failure (a handler's expression that failed), attached, not thrown. */
  declare readonly reportErrors: readonly Error[] | undefined;

  constructor(code: ErrorCode, message: string, request: RequestSummary, options?: { cause?: unknown }) {
    super(code, message, options);
    Object.defineProperty(this, 'request', { value: request, enumerable: false });
  }

  /** Sets what reporting found out (non-enumerable fields: see above). */
  report(
    fields: Partial<
      Pick<CallError, 'details' | 'detailsFrom' | 'bodyExcerpt' | 'output' | 'alert' | 'reportErrors'>
    >,
  ): void {
    for (const [name, value] of Object.entries(fields)) {
      Object.defineProperty(this, name, { value, enumerable: false, configurable: true });
    }
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

/**
 * Which deadline passed: one wait of a request (`connect`, `headers`, `body`: the longest pause
 * between chunks), the request as a whole (`request`), a whole execution with its retries and guard
 * (`execution`), or a whole datasource sync with all its pages (`sync`).
 */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'request' | 'execution' | 'sync';

/** The setting that raises each deadline. */
export const TIMEOUT_SETTINGS: Readonly<Record<TimeoutPhase, string>> = {
  connect: 'settings.http.connectTimeoutMs',
  headers: 'settings.http.headersTimeoutMs',
  body: 'settings.http.bodyTimeoutMs',
  request: 'settings.http.requestTimeoutMs',
  execution: 'settings.execution.timeoutMs',
  sync: 'settings.sync.timeoutMs',
};

export class TimeoutError extends CallError {
  readonly phase: TimeoutPhase;
  readonly limitMs: number;

  /** `subject` names what ran out of time for the `execution` and `sync` phases (`function 'x'`). */
  constructor(
    request: RequestSummary,
    phase: TimeoutPhase,
    limitMs: number,
    cause?: unknown,
    subject?: string,
  ) {
    super('TIMEOUT', timeoutMessage(request, phase, limitMs, subject), request, { cause });
    this.phase = phase;
    this.limitMs = limitMs;
  }
}

function timeoutMessage(request: RequestSummary, phase: TimeoutPhase, limitMs: number, subject?: string) {
  const raise = `limit ${limitMs} ms; raise ${TIMEOUT_SETTINGS[phase]} in solution.yaml`;
  const call = `${request.method} ${request.url}`.trim();
  switch (phase) {
    case 'connect':
      return `${call} timed out waiting for the connection (${raise})`;
    case 'headers':
    case 'body':
      return `${call} timed out waiting for the response ${phase} (${raise})`;
    case 'request':
      return `${call} did not complete in time: the whole request, body included, has a deadline (${raise})`;
    default:
      return `${subject ?? phase} did not finish in time (${raise})${call ? `; it was stopped during ${call}` : ''}`;
  }
}

/** The response body is larger than `settings.http.maxResponseMb`; reading stopped at the limit. */
export class ResponseTooLargeError extends CallError {
  readonly limitBytes: number;

  constructor(request: RequestSummary, limitBytes: number, declaredBytes?: number) {
    const size =
      declaredBytes === undefined
        ? `more than ${limitBytes} bytes`
        : `${declaredBytes} bytes (Content-Length)`;
    super(
      'RESPONSE_TOO_LARGE',
      `${request.method} ${request.url}: the response body is ${size}, over the limit of ${limitBytes} bytes; reading stopped. Ask the service for less (a page size, a filter) or raise settings.http.maxResponseMb in solution.yaml`,
      request,
    );
    this.limitBytes = limitBytes;
  }
}

/**
 * A response restfn does not read as bytes: a content coding it does not decode (or data that is not
 * what its coding says), or a character set it does not know.
 */
export class ResponseEncodingError extends CallError {
  constructor(request: RequestSummary, problem: string, cause?: unknown) {
    super(
      'RESPONSE_ENCODING',
      `${request.method} ${request.url}: ${problem}; the body is not read. Ask the service for UTF-8 (or another charset it names), uncompressed or in gzip, deflate or br`,
      request,
      cause === undefined ? undefined : { cause },
    );
  }
}

/** A JSON or XML response nests deeper than `settings.http.maxResponseDepth`. */
export class ResponseTooDeepError extends CallError {
  readonly limit: number;

  constructor(request: RequestSummary, format: string, limit: number) {
    super(
      'RESPONSE_TOO_DEEP',
      `${request.method} ${request.url}: the ${format} response nests deeper than ${limit} levels, more than restfn reads; raise settings.http.maxResponseDepth in solution.yaml if the service really answers so`,
      request,
    );
    this.limit = limit;
  }
}

/** Too many redirects, or a redirect back to the same address. */
/**
 * The platform refused to connect: the target resolves to an address it does not call (loopback,
 * private, link-local, ...), on the first request or on a redirect.
 */
export class TargetRefusedError extends CallError {
  constructor(request: RequestSummary, detail: string, options?: { cause?: unknown; redirected?: boolean }) {
    super(
      'TARGET_REFUSED',
      options?.redirected
        ? `${request.method} ${request.url} redirects to a target that is refused; not followed: ${detail}`
        : `${request.method} ${request.url} was not sent: ${detail}`,
      request,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
  }
}

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

/**
 * A request would carry a credential to an origin it was not given for (a function's url, a
 * redirect, a next link or a caller's value pointing elsewhere): refused before anything is sent.
 */
export class CredentialOriginError extends CredentialError {
  constructor(key: string, origin: string, allowed: readonly string[]) {
    super(
      'CREDENTIAL_ORIGIN',
      `credential '${printable(key)}' may not be sent to ${printable(origin)}: it is bound to ${allowed.length > 0 ? allowed.join(', ') : 'no origin'}; nothing was sent. If ${printable(origin)} should receive it, store the credential again with its origins (restfn credentials set ${printable(key)} --origin ${printable(origin)}, or the console's Origins field)`,
      key,
    );
  }
}
