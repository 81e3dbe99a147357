/**
 * What restfn's own code needs of an abort signal: whether it fired, why, and a listener. A real
 * `AbortSignal` has all of it, and so has `Abort`, the light one an execution and a request use.
 * undici accepts either (it reads `aborted`/`reason` and adds an `abort` listener).
 */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A light abort signal: an `AbortController` and its listeners cost about ten times more to create
 * and listen to, on every execution and every request. `signal` gives a real `AbortSignal` that
 * follows this one, made on first use, for what needs one (the OAuth client's fetch, a retry's
 * sleep, `AbortSignal.any`). Listeners run once, in the order they were added.
 */
export class Abort implements AbortLike {
  aborted = false;
  /** undici rejects with this; undefined makes it a `RequestAbortedError`. */
  reason: unknown = undefined;
  private listeners: Array<() => void> | undefined;
  private real: AbortController | undefined;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.listeners) this.listeners.push(listener);
    else this.listeners = [listener];
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.listeners;
    if (!listeners) return;
    const at = listeners.lastIndexOf(listener);
    if (at !== -1) listeners.splice(at, 1);
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
    this.real?.abort(reason);
  }

  /** This signal as a real `AbortSignal` (one per `Abort`, made when first asked for). */
  get signal(): AbortSignal {
    if (!this.real) {
      this.real = new AbortController();
      if (this.aborted) this.real.abort(this.reason);
    }
    return this.real.signal;
  }
}

/** A signal for an API that takes only a real `AbortSignal`. */
export function toSignal(signal: AbortLike | undefined): AbortSignal | undefined {
  return signal instanceof Abort ? signal.signal : (signal as AbortSignal | undefined);
}
