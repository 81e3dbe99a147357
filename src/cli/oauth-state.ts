import type { OAuthCredential } from '../auth/store.js';

/** What `credentials list` says about an OAuth credential (pure, so the wording is tested once). */
export function oauthState(grant: OAuthCredential['grantType'] | undefined, hasToken: boolean): string {
  if (grant === 'client_credentials')
    return hasToken ? 'client credentials: token cached' : 'client credentials: no login needed';
  if (hasToken) return 'logged in';
  return grant === undefined ? 'no token' : 'no token: restfn login';
}
