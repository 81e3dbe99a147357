import { CallError, type RequestSummary, TimeoutError } from '../http/errors.js';

/**
 * The overall deadline of one `execute` or one `sync`: whatever is under way when it passes (a
 * request, a retry wait, a token refresh) is aborted through `signal`, which also follows the
 * caller's own signal. The per-request deadline bounds one attempt; this bounds the retries, the
 * guard and the pages together. A real timer: the injectable clock decides retry delays, but only
 * real time can interrupt a service that keeps a connection busy.
 */
export class Deadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly phase: 'execution' | 'sync',
    private readonly limitMs: number,
    /** Names what ran out of time in the error: `function 'x'`, `datasource 'y'`. */
    private readonly subject: string,
    outer?: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.controller.abort(), limitMs);
    this.signal = outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
  }

  /** Runs `work` with the deadline's signal; a failure after the deadline passed is a `TIMEOUT`. */
  async run<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await work(this.signal);
    } catch (error) {
      throw this.explain(error);
    } finally {
      clearTimeout(this.timer);
    }
  }

  /** Whatever failed once the deadline passed failed because of it (an abort, a cut-off body). */
  private explain(error: unknown): unknown {
    if (!this.controller.signal.aborted) return error;
    const request: RequestSummary = error instanceof CallError ? error.request : { method: '', url: '' };
    const timeout = new TimeoutError(request, this.phase, this.limitMs, error, this.subject);
    if (error instanceof CallError) timeout.correlationId = error.correlationId;
    return timeout;
  }
}
