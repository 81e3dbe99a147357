import { login } from '../../auth/login.js';
import type { Credential, CredentialStore, OAuthCredential } from '../../auth/store.js';
import { loadSolution } from '../../definition/solution.js';
import { SYSTEM_CLOCK } from '../../errors/clock.js';
import { CredentialError } from '../../errors/credential-error.js';
import { printable } from '../../errors/printable.js';
import { UsageError } from '../../errors/restfn-error.js';
import { normaliseOrigin, originsNamingCredential } from '../../runtime/credential-origins.js';
import { openCredentials } from '../credentials.js';
import { oauthState } from '../oauth-state.js';
import { printRows, status, warn } from '../output.js';
import { platformClient } from '../platform-logins.js';
import { readSecret } from '../read-secret.js';
import { solutionDir } from '../solution-dir.js';
import type { RemoteOptions, SetOptions } from './credentials.js';

// `restfn credentials ...` and `restfn login` (loaded when a command runs; the options are in credentials.ts).

/**
 * With --server, the platform's credentials of the solution: same commands, same prompts; the
 * platform keeps them (encrypted, write-only) and applies them when it executes for an app.
 */
function onPlatform(options: RemoteOptions & { solution?: string }) {
  if (options.server === undefined) return undefined;
  const client = platformClient(options);
  const name = options.name ?? loadSolution(solutionDir(options.solution)).name;
  return { client, base: `/api/v1/solutions/${encodeURIComponent(name)}/credentials`, name };
}

export async function setCredential(key: string, options: SetOptions): Promise<void> {
  const platform = onPlatform(options);
  const origins = options.origin.map((text) => {
    const origin = normaliseOrigin(text);
    if (origin === undefined) {
      throw new UsageError(
        `--origin '${printable(text)}' is not an origin: write scheme://host[:port], such as https://api.example.com`,
      );
    }
    return origin;
  });
  const credential = await buildCredential(options);
  const bound = origins.length > 0 ? { ...credential, origins } : credential;
  if (platform) {
    const answer = await platform.client.request<{ origins?: string[] }>(
      'PUT',
      `${platform.base}/${encodeURIComponent(key)}`,
      bound,
    );
    status(
      `stored ${credential.kind} credential '${key}' for solution '${platform.name}' on ${platform.client.url}, sent only to ${(answer.origins ?? []).join(', ')}`,
    );
    return;
  }
  const dir = solutionDir(options.solution);
  openCredentials(dir, true).set(key, bound);
  if (origins.length > 0) {
    status(`stored ${credential.kind} credential '${key}', sent only to ${origins.join(', ')}`);
    return;
  }
  status(`stored ${credential.kind} credential '${key}'`);
  // It works, as before origins existed; the platform would refuse it.
  const { origins: seen } = originsNamingCredential(loadSolution(dir), key);
  warn(
    `credential '${key}' has no --origin, so it goes wherever a function's url points; bind it with ${seen.length > 0 ? seen.map((o) => `--origin ${o}`).join(' ') : '--origin https://api.example.com'}`,
  );
}

export async function listCredentials(
  options: RemoteOptions & { solution?: string; format?: string },
): Promise<void> {
  const platform = onPlatform(options);
  let rows: Array<{ key: string; kind: string; state?: string }>;
  if (platform) {
    const { credentials } = await platform.client.request<{
      credentials: Array<{
        key: string;
        kind: string;
        fields: { grantType?: OAuthCredential['grantType'] };
        hasToken: boolean;
      }>;
    }>('GET', platform.base);
    rows = credentials.map((c) => ({
      key: c.key,
      kind: c.kind,
      ...(c.kind === 'oauth' ? { state: oauthState(c.fields.grantType, c.hasToken) } : {}),
    }));
  } else {
    const store = openCredentials(solutionDir(options.solution));
    rows = store.list().map((e) => ({
      key: e.key,
      kind: e.kind,
      ...(e.kind === 'oauth' ? { state: oauthState(grantOf(store, e.key), e.hasToken) } : {}),
    }));
  }
  printRows(
    options.format,
    rows,
    [
      ['KEY', (r) => r.key],
      ['KIND', (r) => r.kind],
      ['STATE', (r) => r.state ?? ''],
    ],
    'no credentials stored',
  );
}

export async function deleteCredential(
  key: string,
  options: RemoteOptions & { solution?: string },
): Promise<void> {
  const platform = onPlatform(options);
  if (platform) {
    await platform.client.request('DELETE', `${platform.base}/${encodeURIComponent(key)}`);
    status(`deleted '${key}' from solution '${platform.name}' on ${platform.client.url}`);
    return;
  }
  if (!openCredentials(solutionDir(options.solution)).delete(key)) {
    throw new CredentialError('CREDENTIAL_NOT_FOUND', `no credential '${key}'`);
  }
  status(`deleted '${key}'`);
}

/**
 * `restfn connect KEY --server`: the platform's connect address for this user (the API token's);
 * the browser that opens it is asked to confirm which account goes to which user. The address goes
 * to stdout (a script may open it), the words around it to stderr.
 */
export async function connect(key: string, options: RemoteOptions & { solution?: string }): Promise<void> {
  const platform = onPlatform(options);
  if (!platform) {
    throw new UsageError(
      `restfn connect is for functions the platform runs (--server): for useLocalCall functions, log in on this device with 'restfn login ${key}'`,
    );
  }
  const { url } = await platform.client.request<{ url: string }>(
    'GET',
    `${platform.base}/${encodeURIComponent(key)}/connect`,
  );
  process.stderr.write(
    `Open this address in a browser, sign in to the provider and confirm; the platform then calls '${key}' as you:\n`,
  );
  process.stdout.write(`${url}\n`);
}

export async function logIn(key: string, options: RemoteOptions & { solution?: string }): Promise<void> {
  const platform = onPlatform(options);
  // A local call (`useLocalCall`) logs in from the device: the platform gives the configuration
  // (never a client secret), the tokens stay in the device's store.
  const store = openCredentials(solutionDir(options.solution), platform !== undefined);
  if (platform) {
    const config = await platform.client.request<Credential>(
      'GET',
      `${platform.base}/${encodeURIComponent(key)}/oauth`,
    );
    store.set(key, config);
  }
  if (grantOf(store, key) === 'client_credentials') {
    throw new UsageError(
      `credential '${key}' uses the client_credentials grant: restfn gets its tokens from the token endpoint when a function needs them, so there is nothing to log in to; run the function`,
      'LOGIN_NOT_NEEDED',
    );
  }
  await login(store, key, {
    clock: SYSTEM_CLOCK,
    onUrl: (url) => process.stderr.write(`Open this address in a browser to log in:\n${url}\n`),
  });
  status(`logged in: '${key}'`);
}

/**
 * `list` and `login` must tell the same story: only the authorization-code grant logs in; a
 * client-credentials credential fetches its own tokens. The grant is inside the encrypted record,
 * so it is read with the key; without a usable key it stays unknown.
 */
function grantOf(store: CredentialStore, key: string): OAuthCredential['grantType'] | undefined {
  try {
    const credential = store.get(key);
    return credential?.kind === 'oauth' ? credential.grantType : undefined;
  } catch {
    return undefined;
  }
}

async function buildCredential(o: SetOptions): Promise<Credential> {
  if (o.kind === 'secret') return { kind: 'secret', value: await readSecret('secret value') };
  if (o.kind === 'bearer') {
    // The token alone: a pasted `Bearer ...` keeps only what follows (the scheme is added when sent).
    const token = (await readSecret('bearer token')).replace(/^bearer\s+/i, '');
    return { kind: 'bearer', token };
  }
  if (o.kind === 'basic') {
    if (!o.username) throw new UsageError('--username is required for a basic credential');
    return { kind: 'basic', username: o.username, password: await readSecret('password') };
  }
  if (!o.tokenUrl || !o.clientId)
    throw new UsageError('--token-url and --client-id are required for an oauth credential');
  if (o.grant === 'authorization_code' && !o.authorizeUrl) {
    throw new UsageError('--authorize-url is required for the authorization_code grant');
  }
  const clientSecret = o.public ? undefined : await readSecret('client secret');
  return {
    kind: 'oauth',
    tokenEndpoint: o.tokenUrl,
    ...(o.authorizeUrl ? { authorizationEndpoint: o.authorizeUrl } : {}),
    ...(o.issuer ? { issuer: o.issuer } : {}),
    clientId: o.clientId,
    ...(clientSecret ? { clientSecret } : {}),
    scopes: o.scope,
    grantType: o.grant,
    ...(o.redirectUri ? { redirectUri: o.redirectUri } : {}),
  };
}
