import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSolution } from '../../src/definition/solution.js';
import { LocalStore } from '../../src/local/store.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { recordingClock } from './clock.js';

/**
 * A runtime over the solution at `root` with a real SQLite file, whose credential provider gives
 * `secret` for every credential parameter; `bytes()` (after `close()`) reads the database files as
 * stored, for tests that search them for the secret.
 */
export function secretRuntime(root: string, secret: string) {
  const file = join(root, '.restfn', 'local.db');
  const store = new LocalStore(file);
  const runtime: Runtime = createRuntime(loadSolution(root), {
    store,
    clock: recordingClock(),
    credentials: {
      apply: async (r) => ({ values: [{ name: r.parameter, location: r.location, value: secret }] }),
    },
  });
  return {
    runtime,
    store,
    async close() {
      await runtime.close();
      store.close();
    },
    bytes: () =>
      [file, `${file}-wal`]
        .filter((f) => existsSync(f))
        .map((f) => readFileSync(f).toString('latin1') + readFileSync(f).toString('utf8'))
        .join('\n'),
  };
}
