import { EXIT } from './exit-table.js';

export interface Interrupt {
  readonly signal: AbortSignal;
  readonly interrupted: boolean;
  dispose(): void;
}

/**
 * Ctrl-C while a command works: the first SIGINT aborts the work through `signal` (requests are
 * cancelled, a sync's staged writes discarded) so the command can say what was kept; a second one
 * quits at once.
 */
export function onInterrupt(): Interrupt {
  const controller = new AbortController();
  const handler = () => {
    if (controller.signal.aborted) process.exit(EXIT.INTERRUPTED);
    process.stderr.write('\nrestfn: interrupted; stopping (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', handler);
  return {
    signal: controller.signal,
    get interrupted() {
      return controller.signal.aborted;
    },
    dispose() {
      process.off('SIGINT', handler);
    },
  };
}
