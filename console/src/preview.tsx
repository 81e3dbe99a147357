import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, type FunctionInfo } from './api.js';
import { ConnectionState, connectHref } from './connection.js';
import { inferSchema } from './infer-schema.js';
import { JsonView } from './json-view.js';
import { YamlSource } from './yaml-source.js';

/** One attempt as the platform saw it: credentials masked, the response before `outputTransform`. */
interface Exchange {
  readonly request?: { method: string; url: string; headers: Record<string, string>; body?: string };
  readonly response?: { status: number; durationMs: number; headers: Record<string, string>; body: string };
  readonly retry?: { attempt: number; delayMs: number; reason: string };
}

type Outcome =
  | { kind: 'ok'; output: unknown; status: string; ms: number; correlationId: string; trace?: Exchange[] }
  | { kind: 'error'; body: Record<string, unknown>; status: number; ms: number; trace?: Exchange[] };

/**
 * Preview (spec 1.4): the parameters on the left with their initial values (a credential shows its
 * key, never a value), Preview executes through the platform, the result on the right.
 */
export function Preview({
  solution,
  fn,
  mayTrace,
}: {
  solution: string;
  fn: FunctionInfo;
  mayTrace: boolean;
}) {
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [busy, setBusy] = useState(false);
  const [showSource, setShowSource] = useState(false);
  const result = useRef<HTMLDivElement>(null);
  // On a narrow screen the result is below the form: brought into view once it is there.
  useEffect(() => {
    const box = result.current?.getBoundingClientRect();
    if (outcome && box && (box.top > window.innerHeight - 80 || box.top < 0))
      result.current?.scrollIntoView({ block: 'start' });
  }, [outcome]);
  // A preview of anything but GET/HEAD may change data at the service: asked first, nothing sent.
  const [confirming, setConfirming] = useState<Record<string, unknown> | undefined>();
  const safe = fn.method === 'GET' || fn.method === 'HEAD';
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const parameters: Record<string, unknown> = {};
    for (const p of fn.parameters) {
      if (p.credential) continue;
      const raw = form.get(p.name);
      if (raw === null || raw === '') continue;
      parameters[p.name] = typed(String(raw), p.type);
    }
    if (safe) void run(parameters);
    else setConfirming(parameters);
  };
  const run = async (parameters: Record<string, unknown>) => {
    setConfirming(undefined);
    setBusy(true);
    const started = performance.now();
    try {
      const answer = await api<{
        status: string;
        output: unknown;
        correlationId: string;
        trace?: Exchange[];
      }>(
        'POST',
        `/solutions/${encodeURIComponent(solution)}/functions/${encodeURIComponent(fn.name)}/execute`,
        mayTrace ? { parameters, trace: true } : { parameters },
      );
      setOutcome({
        kind: 'ok',
        output: answer.output,
        status: answer.status,
        ms: performance.now() - started,
        correlationId: answer.correlationId,
        ...(answer.trace ? { trace: answer.trace } : {}),
      });
    } catch (e) {
      const body =
        e instanceof ApiError
          ? e.body
          : { code: 'UNREACHABLE', message: 'the platform could not be reached' };
      const trace = body.trace as Exchange[] | undefined;
      setOutcome({
        kind: 'error',
        body,
        status: e instanceof ApiError ? e.status : 0,
        ms: performance.now() - started,
        ...(trace ? { trace } : {}),
      });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="preview" aria-label={`Preview of ${fn.name}`}>
      <header class="function-header">
        <h2>{fn.name}</h2>
        <p>
          <span class={`method method-${fn.method.toLowerCase()}`}>{fn.method}</span> <code>{fn.url}</code>
        </p>
        <button type="button" onClick={() => setShowSource(!showSource)} aria-expanded={showSource}>
          {showSource ? 'Hide definition' : 'Show definition'}
        </button>
      </header>
      {showSource && (
        <section aria-label="Function definition">
          <YamlSource text={fn.source} />
          {outcome?.kind === 'ok' ? (
            <>
              <h3>Output schema, inferred from the last result</h3>
              <section aria-label="Output schema">
                <pre class="source">
                  {JSON.stringify(
                    {
                      $schema: 'https://json-schema.org/draft/2020-12/schema',
                      ...inferSchema(outcome.output),
                    },
                    null,
                    2,
                  )}
                </pre>
              </section>
            </>
          ) : (
            <p class="muted">Run a preview to see the schema of its output.</p>
          )}
        </section>
      )}
      <div class="panes">
        <form class="parameters" onSubmit={submit}>
          <h3>Parameters</h3>
          {fn.parameters.length === 0 && <p class="muted">No parameters.</p>}
          {fn.parameters.map((p) =>
            p.credential ? (
              <p key={p.name} class="credential-param">
                <span class="param-name">{p.name}</span> <span class="muted">({p.location}, credential)</span>
                <br />
                <code>{String(p.value ?? '')}</code>
                {p.credential === 'oauth' && (
                  <>
                    <br />
                    <ConnectionState solution={solution} credential={String(p.value ?? '')} />
                  </>
                )}
              </p>
            ) : (
              <label key={p.name}>
                <span class="param-name">
                  {p.name}
                  {p.required ? ' *' : ''}
                </span>{' '}
                <span class="muted">
                  ({p.location}, {p.type})
                </span>
                <input name={p.name} defaultValue={initial(p.value)} required={p.required} />
              </label>
            ),
          )}
          <button type="submit" disabled={busy || confirming !== undefined}>
            {busy ? 'Running…' : 'Preview'}
          </button>
          {confirming && (
            <div class="confirm" role="alertdialog" aria-label={`Send ${fn.method}?`}>
              <p>
                This preview sends <strong>{fn.method}</strong> to {hostOf(fn.url)}: it may change data there.
              </p>
              <button type="button" class="danger" onClick={() => void run(confirming)}>
                Send {fn.method}
              </button>{' '}
              <button type="button" onClick={() => setConfirming(undefined)}>
                Cancel
              </button>
            </div>
          )}
        </form>
        <div class="result" aria-live="polite" ref={result}>
          <h3>Result</h3>
          {!outcome && <p class="muted">Run a preview to see the output.</p>}
          {outcome?.kind === 'ok' && (
            <>
              <p class="status ok">
                {outcome.status} · {Math.round(outcome.ms)} ms ·{' '}
                <button
                  type="button"
                  onClick={() => void navigator.clipboard?.writeText(JSON.stringify(outcome.output, null, 2))}
                >
                  Copy JSON
                </button>
              </p>
              <div class="json" data-testid="output">
                <JsonView value={outcome.output} />
              </div>
            </>
          )}
          {outcome?.kind === 'error' && (
            <ErrorView body={outcome.body} status={outcome.status} ms={outcome.ms} solution={solution} />
          )}
          {outcome?.trace && <Exchanges exchanges={outcome.trace} />}
        </div>
      </div>
    </section>
  );
}

function ErrorView({
  body,
  status,
  ms,
  solution,
}: {
  body: Record<string, unknown>;
  status: number;
  ms: number;
  solution: string;
}) {
  const alert = body.alert as { title?: string; description?: string } | undefined;
  // The user has not connected their account to a credential that calls as each user.
  const credential =
    typeof body.connectUrl === 'string'
      ? /\/credentials\/([^/]+)\/connect$/.exec(body.connectUrl)?.[1]
      : undefined;
  return (
    <div class="error-result" role="alert">
      {credential && (
        <p>
          This function calls as you: connect your account first.{' '}
          <a class="button-link" href={connectHref(solution, decodeURIComponent(credential))}>
            Connect
          </a>
        </p>
      )}
      <p class="status failed">
        {String(body.code)} · {status}
        {typeof body.remoteStatus === 'number' ? ` (service answered ${body.remoteStatus})` : ''} ·{' '}
        {Math.round(ms)} ms
      </p>
      {typeof body.title === 'string' && <h4>{body.title}</h4>}
      {typeof body.description === 'string' && <p>{body.description}</p>}
      {typeof body.details === 'string' && <pre class="details">{body.details}</pre>}
      {alert && (
        <div class="device-alert">
          <strong>Alert on the device:</strong> {alert.title}
          {alert.description ? ` — ${alert.description}` : ''}
        </div>
      )}
      <p class="muted">{String(body.message ?? '')}</p>
    </div>
  );
}

/** The raw request and response of each attempt, folded until asked for. */
function Exchanges({ exchanges }: { exchanges: readonly Exchange[] }) {
  if (exchanges.length === 0) return <p class="muted">No request was sent.</p>;
  return (
    <section class="exchanges" aria-label="Raw request and response">
      {exchanges.map((x, i) => (
        <div key={i} class="exchange">
          {exchanges.length > 1 && (
            <h4>
              Attempt {i + 1}
              {x.retry ? ` · retried after ${Math.round(x.retry.delayMs)} ms: ${x.retry.reason}` : ''}
            </h4>
          )}
          {x.request && (
            <details>
              <summary>Raw request</summary>
              <pre class="source">
                {x.request.method} {x.request.url}
                {headerLines(x.request.headers)}
                {x.request.body ? `\n\n${x.request.body}` : ''}
              </pre>
            </details>
          )}
          {x.response ? (
            <details>
              <summary>
                Raw response · {x.response.status} · {Math.round(x.response.durationMs)} ms
              </summary>
              <pre class="source">
                {x.response.status}
                {headerLines(x.response.headers)}
                {x.response.body ? `\n\n${x.response.body}` : ''}
              </pre>
            </details>
          ) : (
            <p class="muted">No response (the attempt failed before an answer came).</p>
          )}
        </div>
      ))}
    </section>
  );
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `\n${name}: ${value}`)
    .join('');
}

function initial(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' && value.startsWith('=')) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function typed(raw: string, type: string): unknown {
  if (type === 'number' || type === 'int' || type === 'integer') return Number(raw);
  if (type === 'boolean') return raw === 'true';
  if (type === 'object' || type === 'array') {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** Where a function's calls go, as a person reads it: the host, or what decides it. */
function hostOf(url: string): string {
  if (url.startsWith('=')) return 'the address its url expression gives';
  try {
    return new URL(url.replaceAll(/[{}]/g, '')).host;
  } catch {
    return url;
  }
}
