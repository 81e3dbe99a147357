import type { SyncProgress } from '../runtime/sync.js';
import { counted } from './plural.js';

/** Without a terminal and without --verbose, a progress line at most this often (after each first page). */
export const QUIET_INTERVAL_MS = 10_000;

/**
 * Whether a page gets a progress line where stderr is no terminal (a log, CI): every page with
 * --verbose; otherwise the first page of each entity, then at most one line per interval, so a long
 * sync shows it is alive without flooding the log. Pure: the caller supplies the clock.
 */
export function shouldLogPage(
  page: number,
  verbose: boolean,
  nowMs: number,
  lastLoggedMs: number | undefined,
): boolean {
  if (verbose || page === 1 || lastLoggedMs === undefined) return true;
  return nowMs - lastLoggedMs >= QUIET_INTERVAL_MS;
}

export function progressLine(p: SyncProgress, elapsedMs: number): string {
  return `${p.entity} <- ${p.function}: page ${p.pages}, ${counted(p.records, 'record')}, ${(elapsedMs / 1000).toFixed(1)} s`;
}

/** On a terminal, one line redrawn in place; elsewhere whole lines (see `shouldLogPage`). */
export function progressReporter(options: { verbose: boolean; tty?: boolean }) {
  const tty = options.tty ?? process.stderr.isTTY === true;
  const started = performance.now();
  let shown = false;
  let lastLogged: number | undefined;
  return {
    update(p: SyncProgress) {
      const now = performance.now();
      const line = progressLine(p, now - started);
      if (tty) {
        process.stderr.write(`\r${line}\u001b[K`);
        shown = true;
      } else if (shouldLogPage(p.pages, options.verbose, now, lastLogged)) {
        process.stderr.write(`restfn: sync: ${line}\n`);
        lastLogged = now;
      }
    },
    /** Clears the terminal line before other output. */
    clear() {
      if (shown) process.stderr.write('\r\u001b[K');
      shown = false;
    },
  };
}
