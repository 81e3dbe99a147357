import { CallError, type RequestSummary } from './errors.js';

/**
 * The requests one execution may send (the platform's `--max-requests-per-execution`): the first,
 * every retry, every redirect followed, a guard's own. A paged execution (`"pages": true`, a
 * datasource preview) is one execution with one budget: each continuation page adds one request
 * to it (`page()`), the page's own first, which the page cap (`sync.maxPages`) already bounds;
 * every request beyond those (retries, redirects, guards) shares the cap. So an execution sends
 * at most `max + pages - 1`. Past it the execution fails with `REQUEST_LIMIT`: an error handler's
 * retries, however they are set, cannot turn one execution, or its pages, into a flood.
 */
export class RequestBudget {
  private sent = 0;
  /** Continuation pages begun: one request each on top of `max`. */
  private pages = 0;

  constructor(readonly max: number) {}

  /** A continuation page begins (not page 1, whose first request is within `max`). */
  page(): void {
    this.pages++;
  }

  /** Called where a request leaves (transport.ts, every hop): past the budget it is not sent. */
  spend(summary: RequestSummary): void {
    if (this.spent) throw new RequestLimitError(summary, this.max, this.sent);
    this.sent++;
  }

  /** No request is left: a retry would fail at once, so it fails now rather than after its delay. */
  get spent(): boolean {
    return this.sent >= this.max + this.pages;
  }

  /** The requests sent so far (REQUEST_LIMIT says it). */
  get count(): number {
    return this.sent;
  }
}

/** A budget when there is a cap (a library runtime has none unless its options set one). */
export function requestBudget(max: number): RequestBudget | undefined {
  return Number.isFinite(max) ? new RequestBudget(max) : undefined;
}

/** One execution sent as many requests as it may; the next was not sent. */
export class RequestLimitError extends CallError {
  readonly limit: number;

  constructor(request: RequestSummary, limit: number, sent = limit) {
    super(
      'REQUEST_LIMIT',
      `${request.method} ${request.url} was not sent: this execution has sent ${sent} requests (retries and redirects counted), the most one execution may on this platform${sent > limit ? ` (${limit}, and the first request of each continuation page)` : ''}. Retry less (lower the error handler's retry.maxRetries, or retry only the statuses worth it); the operator sets the cap with restfn serve --max-requests-per-execution`,
      request,
    );
    this.limit = limit;
  }
}
