import { closest } from '../definition/suggest.js';
import type { Clock } from '../errors/clock.js';
import { CredentialError } from '../errors/credential-error.js';
import type { AppliedCredential, CredentialProvider, CredentialRequest } from './credential-provider.js';
import { clientCredentialsGrant, refreshGrant, type TokenFetch } from './oauth.js';
import type { Credential, OAuthCredential, TokenSet } from './store.js';

/**
 * Where a provider reads credentials and keeps OAuth tokens: the device's encrypted file
 * (`CredentialStore`), or the platform's vault for one solution. Either may answer later.
 */
export interface CredentialRecords {
  get(key: string): Credential | undefined | Promise<Credential | undefined>;
  /** The credential's tokens; with `user`, that user's connection's (the platform's). */
  getTokens(key: string, user?: string): TokenSet | undefined | Promise<TokenSet | undefined>;
  setTokens(key: string, tokens: Omit<TokenSet, 'kind'>, user?: string): void | Promise<void>;
  /** Forgets the tokens, only while the stored refresh token is still `ifRefreshToken` when given. */
  clearTokens(key: string, ifRefreshToken?: string, user?: string): boolean | Promise<boolean>;
  /**
   * Runs `work` while no other process holds the same key's (and user's) lock (several platform
   * instances on one database): a token refresh then happens once across all of them. Absent:
   * this process's own single flight is enough.
   */
  exclusive?<T>(key: string, work: () => Promise<T>, user?: string): Promise<T>;
  /** The keys stored (never a value): what a mistyped key is compared with. */
  keys?(): readonly string[] | Promise<readonly string[]>;
}

export interface ProviderOptions {
  /** How token requests go out (the platform's refuses private addresses); default: `fetch`. */
  readonly fetchWith?: TokenFetch;
  /** Refuse credentials stored without origins (the platform's; a device's may have none). */
  readonly requireOrigins?: boolean;
  /**
   * Authorization-code credentials use the calling user's connection (`CONNECTION_REQUIRED` when
   * there is none), not one login for everyone: the platform, which calls for many users.
   */
  readonly perUser?: boolean;
}

/** Tokens this close to expiry are refreshed before the call. */
const EXPIRY_SKEW_MS = 30_000;

/**
 * Credentials from the encrypted store (spec 5): a secret goes to its parameter's location; a basic
 * credential becomes `Authorization: Basic ...`; an OAuth credential becomes `Authorization: Bearer
 * <token>`, refreshed before the call when it is about to expire, or when a 401 asks for it.
 * Concurrent refreshes of one credential are a single flight, and a rotated refresh token is saved
 * before the new access token is used.
 */
export class StoreCredentialProvider implements CredentialProvider {
  private store: CredentialRecords | undefined;
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(
    private readonly openStore: () => CredentialRecords,
    private readonly clock: Clock,
    private readonly options: ProviderOptions = {},
  ) {}

  async apply(request: CredentialRequest, signal?: AbortSignal): Promise<AppliedCredential> {
    this.store ??= this.openStore();
    const credential = await this.store.get(request.key);
    if (!credential) {
      // A typo of a stored key is the likelier story than a credential nobody stored.
      const stored = (await this.store.keys?.()) ?? [];
      const near = closest(request.key, stored);
      throw new CredentialError(
        'CREDENTIAL_NOT_FOUND',
        `parameter '${request.parameter}' needs the credential '${request.key}', which is not stored${near ? ` (did you mean '${near}'? it is)` : ''}; add it with 'restfn credentials set ${request.key} ${kindFor(request)}'`,
      );
    }
    if (this.options.requireOrigins && credential.origins === undefined) {
      throw new CredentialError(
        'CREDENTIAL_ORIGIN',
        `credential '${request.key}' was stored before credentials were bound to origins, so it is sent nowhere: store it again (restfn credentials set ${request.key} --server, or the console), and it is bound to the origins of the functions that name it`,
        request.key,
      );
    }
    if (request.kind === 'oauth') {
      if (credential.kind !== 'oauth') throw kindMismatch(request, credential.kind);
      const user =
        this.options.perUser && credential.grantType === 'authorization_code' ? request.user : undefined;
      if (this.options.perUser && credential.grantType === 'authorization_code' && user === undefined)
        throw connectionRequired(request.key, undefined);
      const token = await this.token(request.key, credential, request.refresh === true, user, signal);
      return bound(credential, [bearer(request, token)]);
    }
    if (credential.kind === 'basic') {
      const value = `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}`;
      return bound(credential, [{ name: 'authorization', location: 'header', value }]);
    }
    // The scheme is the credential's to add, where the bytes are built: no transform computes it.
    if (credential.kind === 'bearer') return bound(credential, [bearer(request, credential.token)]);
    if (credential.kind !== 'secret') throw kindMismatch(request, credential.kind);
    return bound(credential, [
      { name: request.parameter, location: request.location, value: credential.value },
    ]);
  }

  private token(
    key: string,
    credential: OAuthCredential,
    forceRefresh: boolean,
    user: string | undefined,
    signal?: AbortSignal,
  ): Promise<string> {
    const flightKey = user === undefined ? key : `${key}\0${user}`;
    const running = this.inFlight.get(flightKey);
    if (running) return running;
    // One flight per key from here on: the stored tokens may be read asynchronously, and a second
    // call meanwhile must wait for this one rather than refresh again.
    const flight = (async () => {
      const store = this.store!;
      const current = await store.getTokens(key, user);
      const usable = (tokens: TokenSet | undefined): tokens is TokenSet =>
        tokens !== undefined &&
        (tokens.expiresAt === undefined || tokens.expiresAt - EXPIRY_SKEW_MS > this.clock.now());
      if (usable(current) && !forceRefresh) return current.accessToken;
      if (!store.exclusive) return this.refresh(key, credential, current, user, signal);
      return store.exclusive(
        key,
        async () => {
          // Another process may have refreshed while this one waited for the lock: its tokens do.
          const latest = await store.getTokens(key, user);
          if (usable(latest) && latest.accessToken !== current?.accessToken) return latest.accessToken;
          return this.refresh(key, credential, latest, user, signal);
        },
        user,
      );
    })();
    this.inFlight.set(flightKey, flight);
    return flight.finally(() => this.inFlight.delete(flightKey));
  }

  /** New tokens from the refresh token (or the client's credentials), saved before they are used. */
  private async refresh(
    key: string,
    credential: OAuthCredential,
    current: TokenSet | undefined,
    user: string | undefined,
    signal?: AbortSignal,
  ): Promise<string> {
    const now = this.clock.now();
    const fetchWith = this.options.fetchWith;
    // A user's connection that is gone (never made, or refused) is theirs to make again.
    const again = (cause?: unknown) =>
      user === undefined ? loginRequired(key, cause) : connectionRequired(key, cause);
    let next: Awaited<ReturnType<typeof refreshGrant>>;
    if (current?.refreshToken) {
      try {
        next = await refreshGrant(credential, current.refreshToken, now, signal, fetchWith);
      } catch (error) {
        // Only a refused grant means a new login; an outage of the token endpoint stays what it is.
        if (!(error instanceof CredentialError && error.code === 'LOGIN_REQUIRED')) throw error;
        // The refresh token is useless now: forget it so the next run asks to log in. Unless
        // another process rotated it meanwhile (a server that rotates refresh tokens refuses the
        // old one): its fresh tokens are kept and used.
        if (await this.store!.clearTokens(key, current.refreshToken, user)) throw again(error);
        const rotated = await this.store!.getTokens(key, user);
        if (!rotated) throw again(error);
        return rotated.accessToken;
      }
    } else if (credential.grantType === 'client_credentials') {
      next = await clientCredentialsGrant(credential, now, signal, fetchWith);
    } else {
      throw again();
    }
    // Saved before use: a rotated refresh token must never be lost with the process.
    await this.store!.setTokens(key, next, user);
    return next.accessToken;
  }
}

function bound(credential: Credential, values: AppliedCredential['values']): AppliedCredential {
  return credential.origins === undefined ? { values } : { values, origins: credential.origins };
}

function bearer(request: CredentialRequest, token: string): AppliedCredential['values'][number] {
  if (request.location === 'header')
    return { name: 'authorization', location: 'header', value: `Bearer ${token}` };
  return { name: request.parameter, location: request.location, value: token };
}

function kindMismatch(request: CredentialRequest, stored: string): CredentialError {
  return new CredentialError(
    'CREDENTIAL_KIND',
    `parameter '${request.parameter}' expects a${request.kind === 'oauth' ? 'n OAuth' : ' secret, bearer or basic'} credential, but '${request.key}' is stored as ${stored}${request.kind === 'oauth' && stored === 'bearer' ? ": a static token is sent by a 'type: secret' parameter (Authorization, header) naming it" : ''}`,
  );
}

/** The calling user has no usable connection for `key` (the platform adds where to make one). */
function connectionRequired(key: string, cause?: unknown): CredentialError {
  const error = new CredentialError(
    'CONNECTION_REQUIRED',
    `credential '${key}' calls as each user, and this user has no connection for it (or the provider refused it): connect first`,
    key,
  );
  if (cause) Object.defineProperty(error, 'cause', { value: cause, enumerable: false });
  return error;
}

function loginRequired(key: string, cause?: unknown): CredentialError {
  const error = new CredentialError(
    'LOGIN_REQUIRED',
    `credential '${key}' needs a login: run 'restfn login ${key}'`,
    key,
  );
  if (cause) Object.defineProperty(error, 'cause', { value: cause, enumerable: false });
  return error;
}

/**
 * The `--kind` a missing credential most likely is, from the parameter that names it: the
 * templates' `Authorization` header takes a bearer token, their `basicAuth` a user and password.
 */
function kindFor(request: CredentialRequest): string {
  if (request.kind === 'oauth') return '--kind oauth';
  if (/^authorization$/i.test(request.parameter)) return '--kind bearer';
  if (/basic/i.test(request.parameter)) return '--kind basic --username NAME';
  return '--kind secret';
}
