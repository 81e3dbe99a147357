import type { OAuthCredential } from '../../auth/store.js';
import type { PlatformClient } from '../../client/platform-client.js';
import type { Clock } from '../../errors/clock.js';
import { CredentialError } from '../../errors/credential-error.js';
import type { CredentialTable } from './credential-table.js';

/** What the page needs to open the popup: the authorization address, and the state to expect back. */
export interface SignInStart {
  readonly url: string;
  readonly state: string;
}

interface Pending {
  readonly key: string;
  readonly config: OAuthCredential;
  readonly verifier: string;
  readonly redirectUri: string;
  readonly expires: number;
}

/** A sign-in nobody finished is dropped after this long (as the platform drops its connect flows). */
const PENDING_MS = 10 * 60_000;

/**
 * The worker's half of a sign-in (authorization code with PKCE, S256): `start` copies the
 * credential's OAuth configuration from the platform and makes the authorization address; the
 * verifier stays here, in memory, keyed by the state. `finish` takes the redirect's query (code and
 * state: the page's popup never sees a token), exchanges the code with the verifier and keeps the
 * tokens in the client's database. The code is the Node device login's (auth/oauth.ts).
 */
export class SignIns {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly platform: PlatformClient,
    private readonly solution: string,
    private readonly table: CredentialTable,
    private readonly clock: Clock,
  ) {}

  async start(key: string, redirectUri: string): Promise<SignInStart> {
    const config = await this.configuration(key);
    if (config.grantType !== 'authorization_code' || !config.authorizationEndpoint) {
      throw new CredentialError(
        'LOGIN_NOT_NEEDED',
        `credential '${key}' uses the client_credentials grant: there is no user to sign in, and its client secret stays on the platform (let the platform call the function: remove useLocalCall)`,
        key,
      );
    }
    // The OAuth client loads with the first sign-in: an app without one never downloads it.
    const { startAuthorization } = await import('../../auth/oauth.js');
    const start = await startAuthorization(config, redirectUri);
    const now = this.clock.now();
    for (const [state, p] of this.pending) if (p.expires < now) this.pending.delete(state);
    this.pending.set(start.state, {
      key,
      config,
      verifier: start.verifier,
      redirectUri,
      expires: now + PENDING_MS,
    });
    return { url: start.url.href, state: start.state };
  }

  /** Exchanges the redirect's code (`search`: the redirect page's query) and keeps the tokens. */
  async finish(state: string, search: string): Promise<{ key: string }> {
    const pending = this.pending.get(state);
    this.pending.delete(state);
    if (!pending || pending.expires < this.clock.now()) {
      throw new CredentialError(
        'LOGIN_FAILED',
        'this sign-in is unknown or expired (the app was reloaded meanwhile, or it took over 10 minutes): sign in again',
      );
    }
    const callback = new URL(pending.redirectUri);
    callback.search = search;
    // The user declined, or the provider refused: the sign-in did not happen (nothing to exchange).
    const refused = callback.searchParams.get('error');
    if (refused !== null) {
      throw new CredentialError(
        'LOGIN_FAILED',
        `the provider did not sign in to '${pending.key}': ${refused}${callback.searchParams.has('error_description') ? ` (${callback.searchParams.get('error_description')})` : ''}`,
        pending.key,
      );
    }
    const { exchangeCode } = await import('../../auth/oauth.js');
    const { tokens } = await exchangeCode(
      pending.config,
      { state, verifier: pending.verifier },
      callback,
      pending.redirectUri,
      this.clock.now(),
    );
    this.table.signIn(pending.key, { config: pending.config, tokens });
    return { key: pending.key };
  }

  /**
   * The credential's configuration from the platform (`GET .../credentials/{key}/oauth`, never a
   * client secret); the kept one when the platform cannot be reached.
   */
  private async configuration(key: string): Promise<OAuthCredential> {
    try {
      const config = await this.platform.request<OAuthCredential>(
        'GET',
        `/api/v1/solutions/${encodeURIComponent(this.solution)}/credentials/${encodeURIComponent(key)}/oauth`,
      );
      return {
        kind: 'oauth',
        tokenEndpoint: config.tokenEndpoint,
        ...(config.authorizationEndpoint ? { authorizationEndpoint: config.authorizationEndpoint } : {}),
        ...(config.issuer ? { issuer: config.issuer } : {}),
        clientId: config.clientId,
        scopes: config.scopes ?? [],
        grantType: config.grantType ?? 'client_credentials',
        ...(config.revocationEndpoint ? { revocationEndpoint: config.revocationEndpoint } : {}),
        ...(config.origins ? { origins: config.origins } : {}),
      };
    } catch (error) {
      const kept =
        (error as { code?: string }).code === 'SERVER_UNREACHABLE' ? this.table.get(key) : undefined;
      if (kept) return kept;
      throw error;
    }
  }
}
