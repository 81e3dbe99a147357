import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ActionPreview } from './action.js';
import {
  type ActionInfo,
  ApiError,
  api,
  type DatasourceInfo,
  type FunctionInfo,
  setCsrf,
  type User,
} from './api.js';
import { Credentials } from './credentials.js';
import { DatasourceView } from './datasource.js';
import { Executions } from './executions.js';
import { useIntoView } from './into-view.js';
import { Notices } from './notices.js';
import { Preview } from './preview.js';
import { SignIn } from './sign-in.js';
import { Users } from './users.js';
import { Versions } from './versions.js';

/**
 * Where the console is: `#/`, `#/s/<solution>`, `#/s/<solution>/f/<function>`,
 * `#/s/<solution>/credentials`.
 */
function route(): {
  solution?: string;
  fn?: string;
  datasource?: string;
  action?: string;
  credentials?: boolean;
  executions?: boolean;
  versions?: boolean;
  users?: boolean;
} {
  // After `?`: a screen's own state (the executions' filters), not where the console is.
  const [, s, solution, f, fn] = (location.hash.replace(/^#/, '').split('?')[0] ?? '').split('/');
  return {
    ...(s === 'users' ? { users: true } : {}),
    ...(s === 's' && solution ? { solution: decodeURIComponent(solution) } : {}),
    ...(f === 'f' && fn ? { fn: decodeURIComponent(fn) } : {}),
    ...(f === 'd' && fn ? { datasource: decodeURIComponent(fn) } : {}),
    ...(f === 'a' && fn ? { action: decodeURIComponent(fn) } : {}),
    ...(f === 'credentials' ? { credentials: true } : {}),
    ...(f === 'executions' ? { executions: true } : {}),
    ...(f === 'versions' ? { versions: true } : {}),
  };
}

export function App() {
  const [user, setUser] = useState<User | null | undefined>(undefined);
  const [where, setWhere] = useState(route());
  useEffect(() => {
    // `/session/state`: "not signed in" is a 200 answer, not a 401 the browser logs as an error.
    api<{ signedIn: boolean; user?: User; csrfToken?: string }>('GET', '/session/state')
      .then((s) => {
        setCsrf(s.csrfToken);
        setUser(s.signedIn && s.user ? s.user : null);
      })
      .catch(() => setUser(null));
    const onHash = () => setWhere(route());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  if (user === undefined) return <p class="muted">Loading…</p>;
  if (user === null) return <SignIn onSignedIn={setUser} />;
  const signOut = async () => {
    await api('DELETE', '/session').catch(() => undefined);
    setCsrf(undefined);
    setUser(null);
  };
  return (
    <>
      <header class="top">
        <a href="#/" class="brand">
          restfn console
        </a>
        {user.role === 'admin' && <a href="#/users">Users</a>}
        <span class="who">
          {user.name} <span class="role">({user.role})</span>
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        {where.users && user.role === 'admin' ? (
          <Users me={user.name} />
        ) : where.users ? (
          <p class="muted" role="note">
            Users are managed by admins: your role is {user.role}. <a href="#/">Your solutions</a>
          </p>
        ) : where.solution ? (
          <SolutionView
            solution={where.solution}
            fn={where.fn}
            datasource={where.datasource}
            action={where.action}
            credentials={where.credentials === true}
            executions={where.executions === true}
            versions={where.versions === true}
            mayManage={user.role !== 'user'}
            role={user.role}
          />
        ) : (
          <Solutions />
        )}
      </main>
    </>
  );
}

interface SolutionRow {
  readonly name: string;
  readonly version: number | null;
  readonly title?: string;
  readonly functions?: number;
  readonly published?: string;
  readonly publishedBy?: string;
}

function Solutions() {
  const [list, setList] = useState<SolutionRow[] | undefined>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    api<{ solutions: SolutionRow[] }>('GET', '/solutions')
      .then((a) => setList(a.solutions))
      .catch((e: Error) => setError(e.message));
  }, []);
  if (error) return <Notices error={error} />;
  if (!list) return <p class="muted">Loading…</p>;
  return (
    <section>
      <h1>Solutions</h1>
      {list.length === 0 && <p class="muted">No solutions yet: publish one with restfn publish.</p>}
      <ul class="cards">
        {list.map((s) => (
          <li key={s.name}>
            <a href={`#/s/${encodeURIComponent(s.name)}`}>{s.title ?? s.name}</a>
            {s.title && s.title !== s.name && <span class="muted"> ({s.name})</span>}
            <br />
            <span class="muted">
              {s.version === null
                ? 'not published'
                : `version ${s.version} · ${s.functions} function${s.functions === 1 ? '' : 's'} · published ${new Date(s.published!).toLocaleString()} by ${s.publishedBy}`}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SolutionView({
  solution,
  fn,
  datasource,
  action,
  credentials,
  executions,
  versions,
  mayManage,
  role,
}: {
  solution: string;
  fn: string | undefined;
  datasource: string | undefined;
  action: string | undefined;
  credentials: boolean;
  executions: boolean;
  versions: boolean;
  mayManage: boolean;
  role: string;
}) {
  const [functions, setFunctions] = useState<{
    version: number;
    functions: FunctionInfo[];
    datasources: DatasourceInfo[];
    actions: ActionInfo[];
  }>();
  const [error, setError] = useState<string>();
  const [query, setQuery] = useState('');
  useEffect(() => {
    setFunctions(undefined);
    setError(undefined);
    api<{ version: number; functions: FunctionInfo[]; datasources: DatasourceInfo[]; actions: ActionInfo[] }>(
      'GET',
      `/solutions/${encodeURIComponent(solution)}/functions`,
    )
      .then(setFunctions)
      .catch((e: Error) => setError(e instanceof ApiError ? e.message : 'the platform could not be reached'));
  }, [solution]);
  if (error) return <Notices error={error} />;
  if (!functions) return <p class="muted">Loading…</p>;
  const shown = functions.functions.filter((f) =>
    `${f.name} ${f.url}`.toLowerCase().includes(query.toLowerCase()),
  );
  const selected = functions.functions.find((f) => f.name === fn);
  const selectedDatasource = functions.datasources.find((d) => d.name === datasource);
  const selectedAction = functions.actions.find((a) => a.name === action);
  return (
    <div class="solution">
      <nav class="function-list" aria-label="REST functions">
        <h1>
          {solution} <span class="muted">v{functions.version}</span>
        </h1>
        {mayManage && (
          <p>
            <a
              href={`#/s/${encodeURIComponent(solution)}/credentials`}
              aria-current={credentials ? 'page' : undefined}
            >
              Credentials
            </a>
          </p>
        )}
        {mayManage && (
          <p>
            <a
              href={`#/s/${encodeURIComponent(solution)}/executions`}
              aria-current={executions ? 'page' : undefined}
            >
              Executions
            </a>
          </p>
        )}
        <p>
          <a
            href={`#/s/${encodeURIComponent(solution)}/versions`}
            aria-current={versions ? 'page' : undefined}
          >
            Versions
          </a>
        </p>
        <label>
          Search functions
          <input
            type="search"
            value={query}
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          />
        </label>
        {shown.length === 0 && (
          <p class="muted">
            No function matches <q>{query}</q>.
          </p>
        )}
        <ul>
          {shown.map((f) => (
            <li key={f.name} aria-current={f.name === fn ? 'page' : undefined}>
              <a href={`#/s/${encodeURIComponent(solution)}/f/${encodeURIComponent(f.name)}`}>
                <span class={`method method-${f.method.toLowerCase()}`}>{f.method}</span> {f.name}
              </a>
            </li>
          ))}
        </ul>
        {functions.datasources.length > 0 && (
          <>
            <h2 class="list-heading">Datasources</h2>
            <ul>
              {functions.datasources.map((d) => (
                <li key={d.name} aria-current={d.name === datasource ? 'page' : undefined}>
                  <a href={`#/s/${encodeURIComponent(solution)}/d/${encodeURIComponent(d.name)}`}>
                    <span class="method kind-badge">DATA</span> {d.name}
                  </a>
                </li>
              ))}
            </ul>
          </>
        )}
        {functions.actions.length > 0 && (
          <>
            <h2 class="list-heading">Actions</h2>
            <ul>
              {functions.actions.map((a) => (
                <li key={a.name} aria-current={a.name === action ? 'page' : undefined}>
                  <a href={`#/s/${encodeURIComponent(solution)}/a/${encodeURIComponent(a.name)}`}>
                    <span class="method kind-badge">{(a.method ?? 'ACTION').toUpperCase()}</span> {a.name}
                  </a>
                </li>
              ))}
            </ul>
          </>
        )}
      </nav>
      {/* The chosen screen, brought into view on a phone however it was opened: from the
          navigation or by its address (a link, a reload). One per screen, so once each. */}
      <Screen key={[fn, datasource, action, credentials, executions, versions].join('|')}>
        {(executions || credentials) && !mayManage ? (
          <p class="muted" role="note">
            {executions ? 'Executions' : 'Credentials'} are for the solution's authors and admins: your role
            is {role}. Pick a function to preview it.
          </p>
        ) : versions ? (
          <Versions solution={solution} mayPublish={mayManage} />
        ) : executions ? (
          <Executions solution={solution} functions={functions.functions} />
        ) : credentials ? (
          <Credentials solution={solution} functions={functions.functions} />
        ) : selectedAction ? (
          <ActionPreview key={selectedAction.name} solution={solution} action={selectedAction} />
        ) : selectedDatasource ? (
          <DatasourceView
            key={selectedDatasource.name}
            solution={solution}
            datasource={selectedDatasource}
            functions={functions.functions}
          />
        ) : selected ? (
          <Preview key={selected.name} solution={solution} fn={selected} mayTrace={mayManage} />
        ) : (
          <p class="muted">Pick a function to preview it.</p>
        )}
      </Screen>
    </div>
  );
}

/** The screen beside (on a phone: below) the navigation: into view when it opens. */
function Screen({ children }: { children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  useIntoView(box);
  return (
    <div class="screen" ref={box}>
      {children}
    </div>
  );
}
