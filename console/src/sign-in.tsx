import { useState } from 'preact/hooks';
import { ApiError, api, setCsrf, type User } from './api.js';

/** Sign in with the user name and password an admin gave (`restfn users add --with-password`). */
export function SignIn({ onSignedIn }: { onSignedIn: (user: User) => void }) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api<{ user: User; csrfToken: string }>('POST', '/session', {
        name: String(form.get('name') ?? ''),
        password: String(form.get('password') ?? ''),
      });
      setCsrf(answer.csrfToken);
      onSignedIn(answer.user);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : 'the platform could not be reached');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>restfn console</h1>
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label>
          User name
          <input name="name" autocomplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
