/**
 * The credential a failure concerns: a `CredentialError`'s own (a sign-in needed here), or the one
 * in the platform's `connectUrl` (`CONNECTION_REQUIRED` for a function the platform runs: the
 * answer names where to connect, `.../credentials/{key}/connect`).
 */
export function credentialOf(error: unknown): string | undefined {
  const e = error as { credential?: unknown; answer?: { connectUrl?: unknown } } | undefined;
  if (typeof e?.credential === 'string') return e.credential;
  const connectUrl = e?.answer?.connectUrl;
  if (typeof connectUrl !== 'string') return undefined;
  const match = /\/credentials\/([^/?#]+)\/connect(?:[?#]|$)/.exec(connectUrl);
  return match ? decodeURIComponent(match[1]!) : undefined;
}
