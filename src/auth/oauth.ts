import * as oauth from 'oauth4webapi';
import { CredentialError } from '../errors/credential-error.js';
import type { OAuthCredential, TokenSet } from './store.js';

/**
 * OAuth 2.0 token requests through oauth4webapi (never hand-rolled). Plain HTTP is allowed only for
 * loopback hosts (local development and tests); anything else must be HTTPS.
 */
/** How token requests are sent: the platform passes one that refuses its own network (SSRF). */
export type TokenFetch = typeof fetch;

function endpoints(c: OAuthCredential, signal?: AbortSignal, fetchWith?: TokenFetch) {
  const as: oauth.AuthorizationServer = {
    // oauth4webapi checks `iss` against this: providers whose issuer is not the token endpoint's
    // origin (a tenant path, a trailing slash) need it stored explicitly.
    issuer: c.issuer ?? new URL(c.tokenEndpoint).origin,
    token_endpoint: c.tokenEndpoint,
    ...(c.authorizationEndpoint ? { authorization_endpoint: c.authorizationEndpoint } : {}),
  };
  const client: oauth.Client = { client_id: c.clientId };
  const auth = c.clientSecret ? oauth.ClientSecretBasic(c.clientSecret) : oauth.None();
  // The caller's signal carries the run's deadline: a token endpoint that drips cannot hold a run.
  const options = {
    [oauth.allowInsecureRequests]: isLoopback(c.tokenEndpoint),
    ...(signal ? { signal } : {}),
    ...(fetchWith ? { [oauth.customFetch]: fetchWith } : {}),
  };
  return { as, client, auth, options };
}

export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host.startsWith('127.');
}

export async function clientCredentialsGrant(
  c: OAuthCredential,
  now: number,
  signal?: AbortSignal,
  fetchWith?: TokenFetch,
): Promise<Omit<TokenSet, 'kind'>> {
  const { as, client, auth, options } = endpoints(c, signal, fetchWith);
  return guarded(c, async () => {
    const parameters = new URLSearchParams(c.scopes.length ? { scope: c.scopes.join(' ') } : {});
    const response = await oauth.clientCredentialsGrantRequest(as, client, auth, parameters, options);
    return tokens(await oauth.processClientCredentialsResponse(as, client, response), now, undefined);
  });
}

/** Trades a refresh token for new tokens; a rotated refresh token is returned, else the old one kept. */
export async function refreshGrant(
  c: OAuthCredential,
  refreshToken: string,
  now: number,
  signal?: AbortSignal,
  fetchWith?: TokenFetch,
): Promise<Omit<TokenSet, 'kind'>> {
  const { as, client, auth, options } = endpoints(c, signal, fetchWith);
  return guarded(c, async () => {
    const response = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, options);
    return tokens(await oauth.processRefreshTokenResponse(as, client, response), now, refreshToken);
  });
}

export interface PkceStart {
  readonly url: URL;
  readonly state: string;
  readonly verifier: string;
}

/** The authorization URL of a code flow with PKCE (S256) and a random state. */
export async function startAuthorization(c: OAuthCredential, redirectUri: string): Promise<PkceStart> {
  if (!c.authorizationEndpoint) {
    throw new CredentialError(
      'CREDENTIAL_INCOMPLETE',
      `OAuth credential has no authorization endpoint (--authorize-url)`,
    );
  }
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(c.authorizationEndpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', c.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  if (c.scopes.length) url.searchParams.set('scope', c.scopes.join(' '));
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  return { url, state, verifier };
}

/** Checks the redirect (state, errors) and exchanges the code, proving the PKCE verifier. */
export async function finishAuthorization(
  c: OAuthCredential,
  start: Pick<PkceStart, 'state' | 'verifier'>,
  callback: URL,
  redirectUri: string,
  now: number,
): Promise<Omit<TokenSet, 'kind'>> {
  return (await exchangeCode(c, start, callback, redirectUri, now)).tokens;
}

/**
 * `finishAuthorization` with who logged in: the ID token's `email`, else its `sub`, when the
 * provider gave one (the `openid` scope), and the scopes granted.
 */
export async function exchangeCode(
  c: OAuthCredential,
  start: Pick<PkceStart, 'state' | 'verifier'>,
  callback: URL,
  redirectUri: string,
  now: number,
  fetchWith?: TokenFetch,
): Promise<{ tokens: Omit<TokenSet, 'kind'>; account: string | undefined; scopes: string[] }> {
  const { as, client, auth, options } = endpoints(c, undefined, fetchWith);
  return guarded(c, async () => {
    const params = oauth.validateAuthResponse(as, client, callback, start.state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      redirectUri,
      start.verifier,
      options,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response);
    const claims = result.id_token ? oauth.getValidatedIdTokenClaims(result) : undefined;
    // An email the provider has not verified could name anyone: the subject then.
    const account =
      typeof claims?.email === 'string' && claims.email_verified === true ? claims.email : claims?.sub;
    const scopes = typeof result.scope === 'string' ? result.scope.split(' ').filter(Boolean) : [...c.scopes];
    return { tokens: tokens(result, now, undefined), account, scopes };
  });
}

/** Revokes a token at the provider (RFC 7009), when it has a revocation endpoint; best effort. */
export async function revokeToken(c: OAuthCredential, token: string, fetchWith?: TokenFetch): Promise<void> {
  if (!c.revocationEndpoint) return;
  const { as, client, auth, options } = endpoints(c, undefined, fetchWith);
  const response = await oauth.revocationRequest(
    { ...as, revocation_endpoint: c.revocationEndpoint },
    client,
    auth,
    token,
    options,
  );
  await oauth.processRevocationResponse(response);
}

function tokens(
  result: oauth.TokenEndpointResponse,
  now: number,
  previousRefresh: string | undefined,
): Omit<TokenSet, 'kind'> {
  const refreshToken = result.refresh_token ?? previousRefresh;
  return {
    accessToken: result.access_token,
    ...(refreshToken ? { refreshToken } : {}),
    ...(typeof result.expires_in === 'number' ? { expiresAt: now + result.expires_in * 1000 } : {}),
  };
}

/** OAuth failures as credential errors; an unusable grant means the user must log in again. */
async function guarded<T>(c: OAuthCredential, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError) {
      if (error.error === 'invalid_grant') {
        throw new CredentialError(
          'LOGIN_REQUIRED',
          `the authorization server no longer accepts this login (invalid_grant)`,
        );
      }
      throw new CredentialError(
        'OAUTH_ERROR',
        `the authorization server refused the request: ${error.error}`,
      );
    }
    if (error instanceof CredentialError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new CredentialError('OAUTH_ERROR', `token request to ${c.tokenEndpoint} failed: ${message}`);
  }
}
