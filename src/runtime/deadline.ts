import { Abort, type AbortLike } from '../http/abort.js';
import { CallError, type RequestSummary, TimeoutError } from '../http/errors.js';
import { deadlineAfter, type PendingDeadline } from '../http/timers.js';

/**
 * The overall deadline of one `execute` or one `sync`: whatever is under way when it passes (a
 * request, a retry wait, a token refresh) is aborted through `signal`, which also follows the
 * caller's own signal. The per-request deadline bounds one attempt; this bounds the retries, the
 * guard and the pages together. A real timer: the injectable clock decides retry delays, but only
 * real time can interrupt a service that keeps a connection busy (one Node timer for all deadlines
 * of a duration, see `deadlineAfter`).
 */
export class Deadline {
  /** A light signal (an AbortController per execution costs more than the rest of its set-up). */
  private readonly abort = new Abort();
  private readonly timer: PendingDeadline;
  private readonly outer: AbortLike | undefined;
  private passOn: (() => void) | undefined;
  /** Whether the deadline itself passed (not the caller's abort). */
  private passed = false;

  constructor(
    private readonly phase: 'execution' | 'sync',
    private readonly limitMs: number,
    /** Names what ran out of time in the error: `function 'x'`, `datasource 'y'`. */
    private readonly subject: string,
    outer?: AbortLike,
  ) {
    this.timer = deadlineAfter(limitMs, () => {
      this.passed = true;
      this.abort.abort(new DOMException('This operation was aborted', 'AbortError'));
    });
    // The caller's abort is passed on by a listener removed at the end (AbortSignal.any costs a
    // signal tracked with weak references per execution).
    this.outer = outer;
    if (outer) {
      this.passOn = () => this.abort.abort(outer.reason);
      if (outer.aborted) this.passOn();
      else outer.addEventListener('abort', this.passOn, { once: true });
    }
  }

  /** The deadline's signal as a real `AbortSignal` (made when first asked for). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Runs `work` with the deadline's signal; a failure after the deadline passed is a `TIMEOUT`. */
  async run<T>(work: (signal: AbortLike) => Promise<T>): Promise<T> {
    try {
      return await work(this.abort);
    } catch (error) {
      throw this.explain(error);
    } finally {
      this.timer.clear();
      if (this.passOn) this.outer?.removeEventListener('abort', this.passOn);
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
