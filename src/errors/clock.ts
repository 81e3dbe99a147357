import { setTimeout as delay } from 'node:timers/promises';

/** Time, injectable: tests record the delays instead of waiting for them. */
export interface Clock {
  now(): number;
  /** Waits `ms`; rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
};
