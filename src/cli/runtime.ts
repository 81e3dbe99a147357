import type { CredentialProvider } from '../auth/credential-provider.js';
import type { Solution } from '../definition/solution.js';
import type { LocalStore } from '../local/store.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { printAlert } from './alerts.js';
import { openFiles } from './state-folder.js';
import { printRetry } from './trace.js';
import { type UserOptions, userFrom } from './user-options.js';

/** The runtime a command runs functions with: the solution's credentials, its files, alerts on stderr. */
export async function cliRuntime(
  solution: Solution,
  store: LocalStore | undefined,
  options: UserOptions,
): Promise<Runtime> {
  const runtime = createRuntime(solution, {
    ...(options.server !== undefined ? { remote: await remoteFor(solution, options) } : {}),
    store,
    files: store && openFiles(store),
    credentials: credentialsWhenNeeded(solution.root),
    user: userFrom(options),
    // The library reads no environment: the CLI passes the user's locale (`de_DE.UTF-8` -> `de_DE`).
    locale: process.env.LANG?.split('.')[0],
  });
  runtime.on(printAlert);
  runtime.on(printRetry);
  return runtime;
}

/** `--server`: the call step of every function goes to the platform, under the solution's name. */
async function remoteFor(solution: Solution, options: UserOptions) {
  const { PlatformClient, platformCalls } = await import('../client/remote-calls.js');
  const client = PlatformClient.from({
    ...(typeof options.server === 'string' ? { server: options.server } : {}),
    ...(options.token ? { token: options.token } : {}),
  });
  return platformCalls(client, solution.name);
}

/**
 * The solution's credential store (SQLite) and OAuth client are loaded when a function first needs a
 * credential: most calls never do, and loading them is a good part of a command's start-up.
 */
function credentialsWhenNeeded(solutionRoot: string): CredentialProvider {
  let provider: Promise<CredentialProvider> | undefined;
  return {
    async apply(request, signal) {
      provider ??= import('./credentials.js').then((m) => m.credentialProvider(solutionRoot));
      return (await provider).apply(request, signal);
    },
  };
}
