import { PlatformError } from './errors.js';

/**
 * Request bodies up to this size are not counted: a body that small never mattered for memory
 * (fastify's `bodyLimit` and the connection limits bound how many there are). Answers are counted
 * whatever their size: a client that pipelines requests and reads nothing has its answers queued in
 * the process's memory behind one another, small or not (issue 36).
 */
export const COUNTED_FROM = 1024 * 1024;

/** What is held: a request body being read and parsed, or an answer not yet written out. */
export type Held = 'request' | 'answer';

/**
 * The bytes the request thread holds for requests in flight, bounded per user and in all (`restfn
 * serve --max-held-mb`, `--max-held-mb-per-user`). A large request body (an execute or call carrying
 * files, up to 32 MB each) is read and parsed whole before the solution's concurrency slot is taken:
 * it is reserved from `Content-Length` before it is read. An answer (an output, a `/call` response,
 * a preview, a page), whatever its size, is reserved once the request thread has its text, until the socket has written
 * it out or the client went away: a client that never reads its answers would otherwise pile them
 * up in the process's memory after their executions ended. Past the user's share the request is
 * refused with 429 `RATE_LIMITED`, past the platform's with 503 `PLATFORM_BUSY`, both with
 * Retry-After; a refused answer is dropped at once.
 */
export class HeldBudget {
  private total = 0;
  private readonly byUser = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly perUser: number,
  ) {}

  /** Reserves `bytes` for `user` (throws RATE_LIMITED, PLATFORM_BUSY); the function returned gives them back, once. */
  take(user: string, bytes: number, what: Held = 'request'): () => void {
    if (what === 'request' && bytes <= COUNTED_FROM) return NOTHING;
    this.reserve(user, bytes, what);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.giveBack(user, bytes);
    };
  }

  /**
   * Reserves `bytes` for `user`, whatever their size (throws RATE_LIMITED, PLATFORM_BUSY): for who
   * keeps what to give back itself (an answer, once per execution: no closure made).
   */
  reserve(user: string, bytes: number, what: Held): void {
    const mine = this.byUser.get(user) ?? 0;
    if (mine + bytes > this.perUser) {
      throw new PlatformError(
        'RATE_LIMITED',
        what === 'answer'
          ? `this answer (${mb(bytes) || 'under 0.1'} MB) and your others not yet read would hold more than ${mb(this.perUser)} MB: read or close the answers you have, then try again (restfn serve --max-held-mb-per-user)`
          : `your large requests in flight would hold more than ${mb(this.perUser)} MB: wait for one to finish (restfn serve --max-held-mb-per-user)`,
        undefined,
        1,
      );
    }
    if (this.total + bytes > this.limit) {
      throw new PlatformError(
        'PLATFORM_BUSY',
        `the platform holds as many large ${what === 'answer' ? 'answers' : 'requests'} as it allows (${mb(this.limit)} MB, restfn serve --max-held-mb): try again in a moment`,
        undefined,
        1,
      );
    }
    this.total += bytes;
    this.byUser.set(user, mine + bytes);
  }

  /** Gives back what `reserve` took (once: the caller keeps track). */
  giveBack(user: string, bytes: number): void {
    this.total -= bytes;
    const left = (this.byUser.get(user) ?? bytes) - bytes;
    if (left <= 0) this.byUser.delete(user);
    else this.byUser.set(user, left);
  }

  /** Bytes held now, in all (the metrics). */
  get held(): number {
    return this.total;
  }
}

const NOTHING = () => undefined;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
