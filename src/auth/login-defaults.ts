// Kept apart from login.ts (which loads the OAuth client): `restfn --help` names it.

/** Where the authorization-code login listens for the redirect, unless the credential says otherwise. */
export const DEFAULT_REDIRECT = 'http://127.0.0.1:53682/callback';
