import { join } from 'node:path';
import type { CredentialProvider } from '../auth/credential-provider.js';
import type { Solution } from '../definition/solution.js';
import { FileStore } from '../local/files.js';
import type { LocalStore } from '../local/store.js';
import type { ExecutionEvent } from '../runtime/events.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { printAlert } from './alerts.js';
import { openFiles, stateFolder } from './state-folder.js';
import { printRetry } from './trace.js';
import { type UserOptions, userFrom } from './user-options.js';

/**
 * The runtime a command runs functions with: the solution's credentials, its files, alerts on stderr
 * (or to `onAlert`: `restfn action` words an earlier command's alert after the one it queued).
 */
export async function cliRuntime(
  solution: Solution,
  store: LocalStore | undefined,
  options: UserOptions,
  onAlert: (event: ExecutionEvent) => void = printAlert,
): Promise<Runtime> {
  const runtime = createRuntime(solution, {
    ...(options.server !== undefined || platformUrl(solution) !== undefined
      ? { remote: await remoteFor(solution, options) }
      : {}),
    store,
    // The file store needs no database: a run that sends a device file reads it from there.
    files: store ? openFiles(store) : new FileStore(join(stateFolder(solution.root), 'files')),
    credentials: credentialsWhenNeeded(solution.root),
    user: userFrom(options),
    // The library reads no environment: the CLI passes the user's locale (`de_DE.UTF-8` -> `de_DE`).
    locale: process.env.LANG?.split('.')[0],
  });
  runtime.on(onAlert);
  runtime.on(printRetry);
  return runtime;
}

/**
 * `--server` (or `settings.platform.url`): the call step of every function goes to the platform,
 * under the solution's name. The address: --server URL, else RESTFN_SERVER, else the setting, else
 * the last `restfn login --server`'s; the token: --token, else RESTFN_TOKEN, else that login's,
 * else the device credential `platform-token` (encrypted, set
 * with `restfn credentials set platform-token --kind secret`).
 */
async function remoteFor(solution: Solution, options: UserOptions) {
  const { PlatformClient, platformCalls } = await import('../client/remote-calls.js');
  const { platformTarget, readLogins } = await import('./platform-logins.js');
  // The last `restfn login --server`'s platform and token come after the setting and the
  // environment; the device credential `platform-token` after them all.
  const fallbackServer = platformUrl(solution);
  const target = platformTarget(
    {
      ...(typeof options.server === 'string' ? { server: options.server } : {}),
      ...(options.token ? { token: options.token } : {}),
      ...(fallbackServer ? { fallbackServer } : {}),
    },
    process.env,
    readLogins(),
  );
  const server = target.server;
  const token = target.token ?? (await storedToken(solution.root));
  const client = PlatformClient.from({ ...(server ? { server } : {}), ...(token ? { token } : {}) }, {});
  return platformCalls(client, solution.name);
}

function platformUrl(solution: Solution): string | undefined {
  return solution.settings?.definition?.settings?.platform?.url;
}

/** The token kept in the device's credential store, when there is a store and one is kept there. */
async function storedToken(solutionRoot: string): Promise<string | undefined> {
  const { openCredentials } = await import('./credentials.js');
  try {
    const stored = openCredentials(solutionRoot).get(PLATFORM_TOKEN_KEY);
    return stored?.kind === 'secret' ? stored.value : undefined;
  } catch {
    // No store or no key yet: no stored token; PlatformClient says how to give one.
    return undefined;
  }
}

/** The device credential that holds the platform token when none is given otherwise. */
export const PLATFORM_TOKEN_KEY = 'platform-token';

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
