/** Time, injectable: tests record the delays instead of waiting for them. */
export interface Clock {
  now(): number;
  /** Waits `ms`; rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, signal),
};

/**
 * Waits `ms`, or rejects with the signal's reason when it aborts first (as Node's
 * timers/promises `setTimeout` does, written with the timers Node and browsers both have).
 */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const stop = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** Node's rejection: an AbortError (code ABORT_ERR) whose cause is the signal's reason. */
function abortReason(signal: AbortSignal | undefined): unknown {
  const error = new Error('The operation was aborted', { cause: signal?.reason }) as Error & { code: string };
  error.name = 'AbortError';
  error.code = 'ABORT_ERR';
  return error;
}
