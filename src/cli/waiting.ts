import { printable } from '../errors/printable.js';
import type { ExecutionEvent } from '../runtime/events.js';

/** A run shows it is waiting once it took this long (on a terminal only). */
export const WAITING_AFTER_MS = 1000;

/** What a waiting run is doing: the request it waits for, and the retry it waits to make. */
export interface WaitingState {
  request?: string;
  retry?: { attempt: number; atMs: number; reason: string };
}

/** `waiting for GET https://... (3.2 s; retry 2 in 1.5 s: 503 Service Unavailable)`: pure. */
export function waitingLine(state: WaitingState, elapsedMs: number, nowMs: number): string {
  const seconds = (ms: number) => `${(Math.max(ms, 0) / 1000).toFixed(1)} s`;
  const retry = state.retry
    ? state.retry.atMs > nowMs
      ? `; retry ${state.retry.attempt} in ${seconds(state.retry.atMs - nowMs)}: ${state.retry.reason}`
      : `; retry ${state.retry.attempt} (${state.retry.reason})`
    : '';
  return printable(`restfn: waiting for ${state.request ?? 'the call'} (${seconds(elapsedMs)}${retry})`);
}

/**
 * On a terminal, a `run` slower than a second shows one line, redrawn in place, saying what it
 * waits for and for how long (retries included), and cleared before the output. The clock and the
 * timer come from the caller, so a test can step them.
 */
export function waitingReporter(io: {
  write: (text: string) => void;
  now: () => number;
  every: (ms: number, tick: () => void) => () => void;
}) {
  const started = io.now();
  const state: WaitingState = {};
  let shown = false;
  const draw = () => {
    const now = io.now();
    if (now - started < WAITING_AFTER_MS) return;
    io.write(`\r${waitingLine(state, now - started, now)}\u001b[K`);
    shown = true;
  };
  const stop = io.every(250, draw);
  return {
    /** Listens to the run's events (register with `runtime.on`). */
    onEvent(event: ExecutionEvent) {
      if (event.type === 'request') state.request = `${event.method} ${event.url}`;
      else if (event.type === 'retried')
        state.retry = { attempt: event.attempt, atMs: io.now() + event.delayMs, reason: event.reason };
      draw();
    },
    /** Stops and clears the line before anything else is printed. */
    done() {
      stop();
      if (shown) io.write('\r\u001b[K');
      shown = false;
    },
  };
}
