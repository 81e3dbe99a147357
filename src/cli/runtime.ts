import type { Solution } from '../definition/solution.js';
import type { LocalStore } from '../local/store.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { printAlert } from './alerts.js';
import { credentialProvider } from './credentials.js';
import { openFiles } from './store-path.js';
import { printRetry } from './trace.js';
import { type UserOptions, userFrom } from './user-options.js';

/** The runtime a command runs functions with: the solution's credentials, its files, alerts on stderr. */
export function cliRuntime(solution: Solution, store: LocalStore | undefined, options: UserOptions): Runtime {
  const runtime = createRuntime(solution, {
    store,
    files: store && openFiles(store),
    credentials: credentialProvider(solution.root),
    user: userFrom(options),
  });
  runtime.on(printAlert);
  runtime.on(printRetry);
  return runtime;
}
