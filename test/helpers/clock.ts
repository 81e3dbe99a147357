import type { Clock } from '../../src/errors/clock.js';

/** A clock whose sleeps return at once and are recorded; `now` advances by each sleep. */
export function recordingClock(
  start = Date.UTC(2026, 10, 21, 12, 0, 0),
): Clock & { delays: number[]; advance(ms: number): void } {
  let now = start;
  const delays: number[] = [];
  return {
    delays,
    now: () => now,
    advance(ms) {
      now += ms;
    },
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      delays.push(ms);
      now += ms;
    },
  };
}
