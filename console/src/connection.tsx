import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api.js';

interface Connection {
  readonly key: string;
  readonly account: string | null;
}

/** Where the browser goes to connect `key`, and comes back to this page afterwards. */
export function connectHref(solution: string, key: string): string {
  const back = encodeURIComponent(window.location.href);
  return `/api/v1/solutions/${encodeURIComponent(solution)}/credentials/${encodeURIComponent(key)}/connect?returnTo=${back}`;
}

/**
 * The signed-in user's connection to an OAuth credential that calls as each user: "Connected as
 * ada@contoso.com · Disconnect", or a Connect link. Nothing for credentials that are the
 * solution's own (client credentials), whose configuration says so.
 */
export function ConnectionState({ solution, credential }: { solution: string; credential: string }) {
  const [state, setState] = useState<{ perUser: boolean; connection: Connection | undefined }>();
  const [error, setError] = useState<string>();
  const base = `/solutions/${encodeURIComponent(solution)}`;
  const load = async () => {
    try {
      const config = await api<{ grantType?: string }>(
        'GET',
        `${base}/credentials/${encodeURIComponent(credential)}/oauth`,
      );
      if (config.grantType !== 'authorization_code')
        return setState({ perUser: false, connection: undefined });
      const { connections } = await api<{ connections: Connection[] }>('GET', `${base}/connections`);
      // An author sees everyone's; the list is filtered to this user's by the platform for users.
      const mine = await api<{ name: string }>('GET', '/me');
      const own = (connections as Array<Connection & { userName: string }>).find(
        (c) => c.key === credential && c.userName === mine.name,
      );
      setState({ perUser: true, connection: own });
    } catch (e) {
      // A credential that is not OAuth, or not stored yet: nothing to connect.
      if (e instanceof ApiError && e.status === 404)
        return setState({ perUser: false, connection: undefined });
      setError(e instanceof ApiError ? e.message : String(e));
    }
  };
  useEffect(() => {
    void load();
  }, [solution, credential]);
  if (error) return <span class="error">{error}</span>;
  if (!state?.perUser) return null;
  if (!state.connection) {
    return (
      <span class="connection">
        Not connected ·{' '}
        <a class="button-link" href={connectHref(solution, credential)}>
          Connect
        </a>
      </span>
    );
  }
  const disconnect = async () => {
    try {
      await api('DELETE', `${base}/credentials/${encodeURIComponent(credential)}/connection`);
      await load();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    }
  };
  return (
    <span class="connection">
      Connected as {state.connection.account ?? 'your account'} ·{' '}
      <button type="button" onClick={() => void disconnect()}>
        Disconnect
      </button>
    </span>
  );
}
