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
  private readonly outer: AbortSignal | undefined;
  /** Whether the deadline itself passed (not the caller's abort). */
  private passed = false;

  constructor(
    private readonly phase: 'execution' | 'sync',
    private readonly limitMs: number,
    /** Names what ran out of time in the error: `function 'x'`, `datasource 'y'`. */
    private readonly subject: string,
    outer?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.passed = true;
      this.controller.abort();
    }, limitMs);
    // The caller's abort is passed on by a listener removed at the end (AbortSignal.any costs a
    // signal tracked with weak references per execution).
    this.signal = this.controller.signal;
    this.outer = outer;
    if (outer?.aborted) this.passOn();
    else outer?.addEventListener('abort', this.passOn, { once: true });
  }

  private readonly passOn = () => this.controller.abort(this.outer?.reason);

  /** Runs `work` with the deadline's signal; a failure after the deadline passed is a `TIMEOUT`. */
  async run<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await work(this.signal);
    } catch (error) {
      throw this.explain(error);
    } finally {
      clearTimeout(this.timer);
      this.outer?.removeEventListener('abort', this.passOn);
    }
  }

  /** Whatever failed once the deadline passed failed because of it (an abort, a cut-off body). */
  private explain(error: unknown): unknown {
    if (!this.passed) return error;
    const request: RequestSummary = error instanceof CallError ? error.request : { method: '', url: '' };
    const timeout = new TimeoutError(request, this.phase, this.limitMs, error, this.subject);
    if (error instanceof CallError) timeout.correlationId = error.correlationId;
    return timeout;
  }
}
