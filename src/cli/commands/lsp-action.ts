import { UsageError } from '../../errors/restfn-error.js';
import { startServer } from '../lsp/server.js';
import type { LspOptions } from './lsp.js';

/** `restfn lsp` (loaded when the command runs; its options are in lsp.ts). Ends when the editor exits it. */
export async function lsp(options: LspOptions): Promise<void> {
  const delay = Number(options.delay);
  if (!Number.isInteger(delay) || delay < 0)
    throw new UsageError(`--delay must be a whole number of milliseconds, not '${options.delay}'`);
  await startServer({ solution: options.solution, delay });
}
