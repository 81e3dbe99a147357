import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../errors/clock.js';
import { CredentialError } from '../errors/credential-error.js';
import { DEFAULT_REDIRECT } from './login-defaults.js';
import { finishAuthorization, isLoopback, startAuthorization } from './oauth.js';
import type { CredentialStore } from './store.js';

export { DEFAULT_REDIRECT } from './login-defaults.js';

/**
 * The authorization-code flow with PKCE through a loopback redirect: listens on the credential's
 * redirect URI (a 127.0.0.1 address), hands the authorization URL to `onUrl` (the CLI prints it for
 * the user to open), waits for the browser to come back, exchanges the code and stores the tokens.
 */
export async function login(
  store: CredentialStore,
  key: string,
  options: { clock: Clock; onUrl: (url: string) => void; timeoutMs?: number; signal?: AbortSignal },
): Promise<void> {
  const credential = store.get(key);
  if (!credential) throw new CredentialError('CREDENTIAL_NOT_FOUND', `credential '${key}' is not stored`);
  if (credential.kind !== 'oauth')
    throw new CredentialError('CREDENTIAL_KIND', `credential '${key}' is ${credential.kind}, not oauth`);
  const redirect = new URL(credential.redirectUri ?? DEFAULT_REDIRECT);
  if (redirect.protocol !== 'http:' || !isLoopback(redirect.href)) {
    throw new CredentialError(
      'CREDENTIAL_INCOMPLETE',
      `the redirect URI must be a loopback http address (got ${redirect.href})`,
    );
  }

  let resolveCallback: (url: URL) => void = () => {};
  const callback = new Promise<URL>((resolve) => {
    resolveCallback = resolve;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', redirect);
    if (url.pathname !== redirect.pathname) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('restfn: login received. You can close this window.\n');
    resolveCallback(url);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new CredentialError(
          'LOGIN_FAILED',
          `cannot listen on ${redirect.host} for the redirect: ${error.message}`,
        ),
      ),
    );
    server.listen(Number(redirect.port || 80), redirect.hostname, resolve);
  });
  const redirectUri = `http://${redirect.hostname}:${(server.address() as AddressInfo).port}${redirect.pathname}`;
  try {
    const start = await startAuthorization(credential, redirectUri);
    options.onUrl(start.url.href);
    const url = await waitFor(callback, options.timeoutMs ?? 300_000, options.signal);
    store.setTokens(key, await finishAuthorization(credential, start, url, redirectUri, options.clock.now()));
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

function waitFor<T>(promise: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new CredentialError('LOGIN_FAILED', 'no login arrived in time')),
      timeoutMs,
    );
    signal?.addEventListener('abort', () => reject(new CredentialError('LOGIN_FAILED', 'login cancelled')), {
      once: true,
    });
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
