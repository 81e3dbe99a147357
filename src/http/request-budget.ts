import { CallError, type RequestSummary } from './errors.js';

/**
 * The requests one execution may send (the platform's `--max-requests-per-execution`): the first,
 * every retry, every redirect followed, a guard's own. Each continuation page has its own (pages
 * are bounded by `sync.maxPages`). Past it the execution fails with `REQUEST_LIMIT`: an error
 * handler's retries, however they are set, cannot turn one execution into a flood.
 */
export class RequestBudget {
  private sent = 0;

  constructor(readonly max: number) {}

  /** Called where a request leaves (transport.ts, every hop): past the budget it is not sent. */
  spend(summary: RequestSummary): void {
    if (this.sent >= this.max) throw new RequestLimitError(summary, this.max);
    this.sent++;
  }

  /** No request is left: a retry would fail at once, so it fails now rather than after its delay. */
  get spent(): boolean {
    return this.sent >= this.max;
  }
}

/** A budget when there is a cap (a library runtime has none unless its options set one). */
export function requestBudget(max: number): RequestBudget | undefined {
  return Number.isFinite(max) ? new RequestBudget(max) : undefined;
}

/** One execution sent as many requests as it may; the next was not sent. */
export class RequestLimitError extends CallError {
  readonly limit: number;

  constructor(request: RequestSummary, limit: number) {
    super(
      'REQUEST_LIMIT',
      `${request.method} ${request.url} was not sent: this execution has sent ${limit} requests (retries and redirects counted), the most one execution may on this platform. Retry less (lower the error handler's retry.maxRetries, or retry only the statuses worth it); the operator sets the cap with restfn serve --max-requests-per-execution`,
      request,
    );
    this.limit = limit;
  }
}
