import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api.js';
import { Confirm } from './confirm.js';
import { Notices } from './notices.js';

interface UserRow {
  readonly id: string;
  readonly name: string;
  readonly role: 'admin' | 'author' | 'user';
  readonly solutions: readonly string[];
}

interface TokenRow {
  readonly id: string;
  readonly name: string;
  readonly created: string;
  readonly revoked: string | null;
}

/**
 * Users (admins): add, change role and solutions, reset a password, revoke tokens. `me`: the signed-in
 * admin, whose own row offers no Remove (the platform refuses it: SELF_REMOVAL).
 */
export function Users({ me }: { me: string }) {
  const [users, setUsers] = useState<UserRow[]>();
  const [error, setError] = useState<string>();
  const [tokensOf, setTokensOf] = useState<{ user: string; tokens: TokenRow[] } | null>(null);
  // A change to someone's access is confirmed first, and said once done.
  const [pending, setPending] = useState<
    { kind: 'role'; user: string; from: string; role: string } | { kind: 'remove'; user: string } | null
  >(null);
  const [done, setDone] = useState<string>();
  const load = () =>
    api<{ users: UserRow[] }>('GET', '/users')
      .then((a) => setUsers(a.users))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, []);
  const run = async (work: () => Promise<unknown>, said?: string) => {
    setError(undefined);
    setDone(undefined);
    try {
      await work();
      await load();
      if (said) setDone(said);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    }
  };
  const confirm = () => {
    if (!pending) return;
    const path = `/users/${encodeURIComponent(pending.user)}`;
    setPending(null);
    void (pending.kind === 'role'
      ? run(
          () => api('PATCH', path, { role: pending.role }),
          `${pending.user} is now ${article(pending.role)}.`,
        )
      : run(() => api('DELETE', path), `Removed ${pending.user} and their tokens.`));
  };
  const add = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const solutions = String(data.get('solutions') ?? '')
      .split(/[\s,]+/)
      .filter(Boolean);
    const password = String(data.get('password') ?? '');
    void run(async () => {
      await api('POST', '/users', {
        name: String(data.get('name')),
        role: String(data.get('role')),
        solutions,
        ...(password ? { password } : {}),
      });
      form.reset();
    });
  };
  const showTokens = (user: string) =>
    void api<{ tokens: TokenRow[] }>('GET', `/users/${encodeURIComponent(user)}/tokens`)
      .then((a) => setTokensOf({ user, tokens: a.tokens }))
      .catch((e: Error) => setError(e.message));
  return (
    <section class="credentials" aria-label="Users">
      <h2>Users</h2>
      <Notices error={error} done={done} />
      {users && (
        <table class="responsive">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Solutions</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id}>
                <td data-label="Name">{u.name}</td>
                <td data-label="Role">
                  <select
                    aria-label={`Role of ${u.name}`}
                    value={pending?.kind === 'role' && pending.user === u.name ? pending.role : u.role}
                    onChange={(e) =>
                      setPending({
                        kind: 'role',
                        user: u.name,
                        from: u.role,
                        role: (e.target as HTMLSelectElement).value,
                      })
                    }
                  >
                    <option value="admin">admin</option>
                    <option value="author">author</option>
                    <option value="user">user</option>
                  </select>
                </td>
                <td data-label="Solutions">
                  {/* An admin sees every solution: its own list is empty, which read as none. */}
                  {u.role === 'admin' ? <span class="muted">all</span> : u.solutions.join(', ')}
                </td>
                <td class="actions">
                  <span class="row-actions">
                    <button
                      type="button"
                      onClick={() => {
                        const password = prompt(`New password for ${u.name} (12 characters or more)`);
                        if (password)
                          void run(() => api('PATCH', `/users/${encodeURIComponent(u.name)}`, { password }));
                      }}
                    >
                      Reset password
                    </button>
                    <button
                      type="button"
                      onClick={() => showTokens(u.name)}
                      aria-label={`Tokens of ${u.name}`}
                    >
                      Tokens
                    </button>
                    {u.name !== me && (
                      <button
                        type="button"
                        class="danger-outline"
                        onClick={() => setPending({ kind: 'remove', user: u.name })}
                        aria-label={`Remove ${u.name}`}
                      >
                        Remove
                      </button>
                    )}
                  </span>
                  {pending?.user === u.name && (
                    <Confirm
                      label={pending.kind === 'role' ? `Change the role of ${u.name}?` : `Remove ${u.name}?`}
                      action={pending.kind === 'role' ? 'Change role' : 'Remove for good'}
                      onConfirm={confirm}
                      onCancel={() => setPending(null)}
                    >
                      {pending.kind === 'role'
                        ? `Change ${u.name}'s role from ${pending.from} to ${pending.role}?`
                        : `Remove ${u.name}? Their tokens stop working and they can no longer sign in.`}
                    </Confirm>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {tokensOf && (
        <section aria-label={`Tokens of ${tokensOf.user}`}>
          <h3>Tokens of {tokensOf.user}</h3>
          {tokensOf.tokens.length === 0 && <p class="muted">No tokens.</p>}
          <ul>
            {tokensOf.tokens.map((t) => (
              <li key={t.id}>
                {t.name} <span class="muted">({new Date(t.created).toLocaleString()})</span>{' '}
                {t.revoked ? (
                  <span class="muted">revoked</span>
                ) : (
                  <button
                    type="button"
                    onClick={() =>
                      void run(async () => {
                        await api('DELETE', `/users/${encodeURIComponent(tokensOf.user)}/tokens/${t.id}`);
                        showTokens(tokensOf.user);
                      })
                    }
                  >
                    Revoke {t.name}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      <form class="credential-form" onSubmit={add} aria-label="Add user">
        <h3>Add user</h3>
        <label>
          Name
          <input name="name" required />
        </label>
        <label>
          Role
          <select name="role">
            <option value="user">user</option>
            <option value="author">author</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <label>
          Solutions (comma-separated)
          <input name="solutions" />
        </label>
        <label>
          Password (for the console; 12 characters or more)
          <input name="password" type="password" autocomplete="new-password" minLength={12} />
        </label>
        <button type="submit">Add user</button>
      </form>
    </section>
  );
}

function article(role: string): string {
  return `${role === 'admin' || role === 'author' ? 'an' : 'a'} ${role}`;
}
