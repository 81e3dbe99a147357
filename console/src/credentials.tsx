import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type FunctionInfo } from './api.js';
import { Confirm } from './confirm.js';
import { Loading, Notices } from './notices.js';

interface CredentialInfo {
  readonly key: string;
  readonly kind: 'secret' | 'bearer' | 'basic' | 'oauth';
  readonly fields: Record<string, unknown>;
  readonly hasToken: boolean;
  readonly updated: string;
  readonly updatedBy: string;
}

/**
 * Credentials of a solution (spec 5.2, 5.3): what exists and who uses it; values are written here
 * and never come back (the form's secret fields start empty, also when updating).
 */
export function Credentials({
  solution,
  functions,
}: {
  solution: string;
  functions: readonly FunctionInfo[];
}) {
  const [list, setList] = useState<CredentialInfo[]>();
  const [error, setError] = useState<string>();
  const [editing, setEditing] = useState<{
    key: string;
    kind: string;
    fields: Record<string, unknown>;
  } | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const base = `/solutions/${encodeURIComponent(solution)}/credentials`;
  const load = () =>
    api<{ credentials: CredentialInfo[] }>('GET', base)
      .then((a) => setList(a.credentials))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, [solution]);
  const usedBy = (key: string) =>
    functions
      .filter((f) => f.parameters.some((p) => p.credential !== undefined && p.value === key))
      .map((f) => f.name);
  const remove = async (key: string) => {
    try {
      await api('DELETE', `${base}/${encodeURIComponent(key)}`);
      setRemoving(null);
      await load();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    }
  };
  if (!list) return <Loading error={error} />;
  return (
    <section class="credentials" aria-label="Credentials">
      <header class="function-header">
        <h2>Credentials</h2>
        <button type="button" onClick={() => setEditing({ key: '', kind: 'secret', fields: {} })}>
          Add credential
        </button>
      </header>
      <Notices error={error} />
      {editing && (
        <CredentialForm
          base={base}
          initial={editing}
          onDone={async () => {
            setEditing(null);
            await load();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {list.length === 0 ? (
        <p class="muted">No credentials yet.</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Kind</th>
              <th scope="col">Used by</th>
              <th scope="col">Last changed</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr key={c.key}>
                <td data-label="Key">
                  <code>{c.key}</code>
                  {typeof c.fields.username === 'string' && <span class="muted"> ({c.fields.username})</span>}
                  {typeof c.fields.clientId === 'string' && (
                    <span class="muted"> (client {c.fields.clientId})</span>
                  )}
                </td>
                <td data-label="Kind" class="kind">
                  {c.kind}
                  {Array.isArray(c.fields.origins) && (
                    <span class="muted origins">
                      to{' '}
                      {(c.fields.origins as string[]).map((o, i) => (
                        <Fragment key={o}>
                          {i > 0 && ', '}
                          <Breakable text={o} />
                        </Fragment>
                      ))}
                    </span>
                  )}
                </td>
                <td data-label="Used by" class="used-by">
                  {usedBy(c.key).length === 0 ? (
                    <span class="muted">no function</span>
                  ) : (
                    usedBy(c.key).map((name, i) => (
                      <Fragment key={name}>
                        {i > 0 && ', '}
                        <a
                          class="fn-link"
                          href={`#/s/${encodeURIComponent(solution)}/f/${encodeURIComponent(name)}`}
                        >
                          {name}
                        </a>
                      </Fragment>
                    ))
                  )}
                </td>
                <td data-label="Last changed">
                  {new Date(c.updated).toLocaleString()} <span class="muted">by {c.updatedBy}</span>
                </td>
                <td class="actions">
                  <span class="row-actions">
                    <button
                      type="button"
                      onClick={() => setEditing({ key: c.key, kind: c.kind, fields: c.fields })}
                      aria-label={`Update ${c.key}`}
                    >
                      Update
                    </button>
                    <button
                      type="button"
                      class="danger-outline"
                      onClick={() => setRemoving(c.key)}
                      aria-label={`Remove ${c.key}`}
                    >
                      Remove
                    </button>
                  </span>
                  {removing === c.key && (
                    <Confirm
                      label={`Remove ${c.key}?`}
                      action="Remove for good"
                      onConfirm={() => void remove(c.key)}
                      onCancel={() => setRemoving(null)}
                    >
                      Remove <code>{c.key}</code>?{' '}
                      {usedBy(c.key).length > 0
                        ? `These functions will stop working: ${usedBy(c.key).join(', ')}.`
                        : 'No function uses it.'}
                    </Confirm>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * A url that may break after its `//` and before a `.` or `:` when its column is narrow (as a
 * person would split it), never inside a host's label.
 */
function Breakable({ text }: { text: string }) {
  return (
    <>
      {text.split(/(?<=\/\/)|(?=[.:])/).map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  );
}

/** Add or update: the kind's fields; secret ones are always empty here and must be entered. */
function CredentialForm({
  base,
  initial,
  onDone,
  onCancel,
}: {
  base: string;
  initial: { key: string; kind: string; fields: Record<string, unknown> };
  onDone: () => void;
  onCancel: () => void;
}) {
  const [kind, setKind] = useState(initial.kind);
  const [error, setError] = useState<string>();
  const updating = initial.key !== '';
  const text = (name: string) =>
    typeof initial.fields[name] === 'string' ? (initial.fields[name] as string) : '';
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const value = (name: string) => String(data.get(name) ?? '');
    const key = updating ? initial.key : value('key');
    // Empty: the platform binds it to the origins of the published functions that name it.
    const origins = value('origins')
      .split(/[\s,]+/)
      .filter(Boolean);
    const credential =
      kind === 'basic'
        ? { kind, username: value('username'), password: value('password') }
        : kind === 'oauth'
          ? {
              kind,
              tokenEndpoint: value('tokenEndpoint'),
              clientId: value('clientId'),
              ...(value('clientSecret') ? { clientSecret: value('clientSecret') } : {}),
              scopes: value('scopes').split(/\s+/).filter(Boolean),
              grantType: value('grantType'),
            }
          : kind === 'bearer'
            ? { kind, token: value('token') }
            : { kind: 'secret', value: value('value') };
    const body = origins.length > 0 ? { ...credential, origins } : credential;
    try {
      await api('PUT', `${base}/${encodeURIComponent(key)}`, body);
      form.reset();
      onDone();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    }
  };
  return (
    <form
      class="credential-form"
      onSubmit={submit}
      aria-label={updating ? `Update ${initial.key}` : 'Add credential'}
    >
      <h3>
        {updating ? (
          <>
            Update <code>{initial.key}</code>
          </>
        ) : (
          'Add credential'
        )}
      </h3>
      {!updating && (
        <label>
          Key
          <input name="key" required pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,99}" />
        </label>
      )}
      <label>
        Kind
        <select
          name="kind"
          value={kind}
          onChange={(e) => setKind((e.target as HTMLSelectElement).value)}
          disabled={updating}
        >
          <option value="secret">API key or secret</option>
          <option value="bearer">Bearer token</option>
          <option value="basic">Basic auth</option>
          <option value="oauth">OAuth client</option>
        </select>
      </label>
      {kind === 'secret' && (
        <label>
          Value
          <input name="value" type="password" autocomplete="off" required />
        </label>
      )}
      {kind === 'bearer' && (
        <label>
          Token (sent as Authorization: Bearer …)
          <input name="token" type="password" autocomplete="off" required />
        </label>
      )}
      {kind === 'basic' && (
        <>
          <label>
            Username
            <input name="username" defaultValue={text('username')} required />
          </label>
          <label>
            Password
            <input name="password" type="password" autocomplete="off" required />
          </label>
        </>
      )}
      {kind === 'oauth' && (
        <>
          <label>
            Token endpoint
            <input name="tokenEndpoint" type="url" defaultValue={text('tokenEndpoint')} required />
          </label>
          <label>
            Client id
            <input name="clientId" defaultValue={text('clientId')} required />
          </label>
          <label>
            Client secret{' '}
            {updating ? '(enter it again; leave empty for a public client)' : '(empty for a public client)'}
            <input name="clientSecret" type="password" autocomplete="off" />
          </label>
          <label>
            Scopes (space-separated)
            <input
              name="scopes"
              defaultValue={
                Array.isArray(initial.fields.scopes) ? (initial.fields.scopes as string[]).join(' ') : ''
              }
            />
          </label>
          <label>
            Grant
            <select name="grantType" defaultValue={text('grantType') || 'client_credentials'}>
              <option value="client_credentials">client credentials</option>
              <option value="authorization_code">authorization code (devices log in)</option>
            </select>
          </label>
        </>
      )}
      <label>
        Origins (where it may be sent; space-separated, such as https://api.example.com)
        <input
          name="origins"
          defaultValue={
            Array.isArray(initial.fields.origins) ? (initial.fields.origins as string[]).join(' ') : ''
          }
          placeholder="empty: the origins of the functions that use it"
        />
      </label>
      {updating && (
        <p class="muted">Secret fields are never shown: enter them again to change the credential.</p>
      )}
      <Notices error={error} />
      <button type="submit">{updating ? 'Save' : 'Add'}</button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
