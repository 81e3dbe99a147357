import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { onTestFinished } from 'vitest';
import { login } from '../../src/auth/login.js';
import type { CredentialStore } from '../../src/auth/store.js';
import type { Clock } from '../../src/errors/clock.js';

export const CLIENT_ID = 'restfn-test';
export const CLIENT_SECRET = 'cs-9fK2mQ7xL4pW8vR3tY6n';
/** A public client (no secret, PKCE): what a device logs in with for `useLocalCall`. */
export const PUBLIC_CLIENT_ID = 'restfn-device';

export interface AuthServer {
  issuer: string;
  tokenEndpoint: string;
  authorizationEndpoint: string;
  provider: Provider;
  /** Token grants the server completed, by grant type. */
  grants: string[];
  /** Whether `token` is a live access token (authorization code or client credentials). */
  isValid(token: string | undefined): Promise<boolean>;
}

/**
 * A real OAuth 2.0 server (oidc-provider) on 127.0.0.1: one confidential client allowed the
 * authorization code (PKCE required), refresh token (rotated) and client credentials grants, and
 * the development login and consent pages the tests fill in as the user would.
 */
export async function authServer(
  redirectUri: string,
  /** Seconds; a function is asked at each token issued (a test shortens one token's life). */
  accessTokenTtl: number | (() => number) = 300,
): Promise<AuthServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        redirect_uris: [redirectUri],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: PUBLIC_CLIENT_ID,
        grant_types: ['authorization_code', 'refresh_token'],
        redirect_uris: [redirectUri],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    ],
    features: {
      clientCredentials: { enabled: true },
      devInteractions: { enabled: true },
      revocation: { enabled: true },
    },
    scopes: ['api', 'offline_access'],
    pkce: { required: () => true },
    issueRefreshToken: async () => true,
    rotateRefreshToken: true,
    ttl: {
      AccessToken: typeof accessTokenTtl === 'function' ? () => accessTokenTtl() : accessTokenTtl,
      ClientCredentials: accessTokenTtl,
      RefreshToken: 3600,
      Session: 3600,
      Interaction: 600,
      Grant: 3600,
    },
  });
  const grants: string[] = [];
  provider.on('grant.success', (ctx) => grants.push(String(ctx.oidc.params?.grant_type)));
  server.on('request', provider.callback());
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    issuer,
    tokenEndpoint: `${issuer}/token`,
    authorizationEndpoint: `${issuer}/auth`,
    provider,
    grants,
    async isValid(token) {
      if (!token) return false;
      const found =
        (await provider.AccessToken.find(token)) ?? (await provider.ClientCredentials.find(token));
      return Boolean(found && !found.isExpired);
    },
  };
}

/**
 * Plays the user in a browser: opens the authorization URL, logs in and consents on the
 * development pages (keeping cookies), and follows redirects until the loopback redirect URI, which
 * it requests last, as the browser would. Returns the final redirect.
 */
export async function actAsUser(authorizationUrl: string, user = 'ada'): Promise<URL> {
  const cookies = new Map<string, string>();
  const request = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  let url = authorizationUrl;
  for (let step = 0; step < 20; step++) {
    const res = await request(url);
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.pathname.endsWith('/callback')) {
        await fetch(next); // the browser lands on the loopback redirect
        return next;
      }
      url = next.href;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form at ${url}: ${html.slice(0, 200)}`);
    const fields = new URLSearchParams();
    for (const [tag] of html.matchAll(/<input[^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(tag)?.[1];
      if (name) fields.set(name, /value="([^"]*)"/.exec(tag)?.[1] ?? '');
    }
    if (fields.has('login')) fields.set('login', user);
    if (fields.has('password')) fields.set('password', 'any-password');
    const posted = await request(new URL(action, url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    const after = posted.headers.get('location');
    if (!after) throw new Error(`form at ${url} did not redirect (${posted.status})`);
    url = new URL(after, url).href;
  }
  throw new Error('too many steps');
}

/** `restfn login`'s flow for credential `key` of `store`, with the test playing the user. */
export async function loginAsUser(store: CredentialStore, clock: Clock, key = 'web'): Promise<void> {
  let user: Promise<URL> | undefined;
  await login(store, key, {
    clock,
    onUrl: (url) => {
      user = actAsUser(url);
    },
  });
  await user;
}
