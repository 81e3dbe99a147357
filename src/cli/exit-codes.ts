import { CommanderError } from 'commander';
import { exitCodeOf, isErrorCode } from '../errors/codes.js';
import { RestfnError } from '../errors/restfn-error.js';
import { EXIT } from './exit-table.js';

export { EXIT } from './exit-table.js';

/**
 * The documented exit code of a failure: its code's family in the one registry
 * (`errors/codes.ts`). Anything without a registered code ran into a bug (codedError gives those
 * INTERNAL before they get here).
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  if (error instanceof RestfnError && isErrorCode(error.code)) return exitCodeOf(error.code);
  return EXIT.INTERNAL;
}
