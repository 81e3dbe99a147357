import { openWasmDatabase } from './open-database.js';
import type { Lease } from './session.js';

/** The app's database in this worker (OPFS when the browser has it), behind its lease. */
export async function openLease(name: string): Promise<Lease> {
  const opened = await openWasmDatabase({ name });
  return {
    persistent: opened.persistent,
    run: (work) => opened.lease.run(work),
    close: () => opened.lease.close(),
  };
}
