import { PlatformError } from './errors.js';

/** Bodies up to this size are not counted: the platform's 1 MB default never mattered for memory. */
const COUNTED_FROM = 1024 * 1024;

/**
 * Large request bodies in flight (an execute or call carrying files, up to 32 MB each): each is
 * read and parsed whole, before the solution's concurrency slot is taken, so their bytes are held
 * to a platform-wide and a per-user budget, reserved from `Content-Length` before the body is read.
 * Past either, the request is refused with 429 and Retry-After, its body unread.
 */
export class BodyBudget {
  private total = 0;
  private readonly byUser = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly perUser: number,
  ) {}

  /** Reserves `bytes` for `user` (throws RATE_LIMITED); the function returned gives them back, once. */
  take(user: string, bytes: number): () => void {
    if (bytes <= COUNTED_FROM) return () => undefined;
    const mine = this.byUser.get(user) ?? 0;
    if (mine + bytes > this.perUser || this.total + bytes > this.limit) {
      throw new PlatformError(
        'RATE_LIMITED',
        mine + bytes > this.perUser
          ? `your large requests in flight would hold more than ${this.perUser / 1024 / 1024} MB: wait for one to finish`
          : `the platform holds as many large requests as it allows (${this.limit / 1024 / 1024} MB): try again in a moment`,
        undefined,
        1,
      );
    }
    this.total += bytes;
    this.byUser.set(user, mine + bytes);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.total -= bytes;
      const left = (this.byUser.get(user) ?? bytes) - bytes;
      if (left === 0) this.byUser.delete(user);
      else this.byUser.set(user, left);
    };
  }
}
