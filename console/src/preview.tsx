import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, apiLines, type FunctionInfo } from './api.js';
import { Confirm } from './confirm.js';
import { ConnectionState, connectHref } from './connection.js';
import { isFileType, readFileValue } from './file-value.js';
import { inferSchema } from './infer-schema.js';
import { useIntoView } from './into-view.js';
import { JsonView } from './json-view.js';
import { defaultExpression, shownDefault, urlAsSent } from './url-as-sent.js';
import { YamlSource } from './yaml-source.js';

/** One attempt as the platform saw it: credentials masked, the response before `outputTransform`. */
interface Exchange {
  readonly request?: { method: string; url: string; headers: Record<string, string>; body?: string };
  readonly response?: { status: number; durationMs: number; headers: Record<string, string>; body: string };
  readonly retry?: { attempt: number; delayMs: number; reason: string };
}

type Outcome =
  | {
      kind: 'ok';
      output: unknown;
      status: string;
      ms: number;
      correlationId: string;
      trace?: Exchange[];
      sent?: Sent;
    }
  | {
      kind: 'pages';
      outputs: unknown[];
      /** What each page sent (its last request), in page order. */
      sents: Array<Sent | undefined>;
      done: boolean;
      stopped?: string;
      error?: Record<string, unknown>;
      ms: number;
    }
  | {
      kind: 'error';
      body: Record<string, unknown>;
      status: number;
      ms: number;
      trace?: Exchange[];
      sent?: Sent;
    };

/** The last request's method and url as sent (credentials masked): what a member without the trace sees. */
interface Sent {
  readonly method: string;
  readonly url: string;
}

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
  // An array or object parameter is JSON, checked as it is typed: `a,b` says what is expected
  // (and the form does not submit) instead of failing at the platform with PARAMETER_TYPE.
  const [problems, setProblems] = useState<Record<string, string>>({});
  const checkJson = (name: string, type: string | undefined, input: HTMLTextAreaElement) => {
    const problem = jsonProblem(input.value, type);
    input.setCustomValidity(problem ?? '');
    setProblems(({ [name]: _, ...rest }) => (problem ? { ...rest, [name]: problem } : rest));
  };
  const result = useRef<HTMLDivElement>(null);
  const top = useRef<HTMLElement>(null);
  useIntoView(top);
  // Which page "All pages" shows: here, so the header's "Sent" is that page's request.
  const [pageView, setPageView] = useState<PageView>({ at: 0, all: false });
  // The url of the last preview as it went (parameters filled in, credentials masked): the last
  // attempt's; of all pages, the shown page's (all together: the last page's).
  const sent =
    outcome?.kind === 'pages'
      ? (shownSent(outcome, pageView) ?? (outcome.error?.sent as Sent | undefined))
      : (outcome?.trace?.at(-1)?.request ?? outcome?.sent);
  // On a narrow screen the result is below the form: brought into view once it is there.
  useEffect(() => {
    const box = result.current?.getBoundingClientRect();
    // Below the middle of the screen, its output would be out of sight.
    if (outcome && box && (box.top > window.innerHeight / 2 || box.top < 0))
      result.current?.scrollIntoView({ block: 'start' });
  }, [outcome]);
  // A preview of anything but GET/HEAD may change data at the service: asked first, nothing sent.
  const [confirming, setConfirming] = useState<
    { parameters: Record<string, unknown>; pages: boolean; url: string } | undefined
  >();
  const safe = fn.method === 'GET' || fn.method === 'HEAD';
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const parameters: Record<string, unknown> = {};
    const texts: Record<string, string> = {};
    for (const p of fn.parameters) {
      if (p.credential) continue;
      const raw = form.get(p.name);
      if (raw === null || raw === '') continue;
      texts[p.name] = String(raw);
      parameters[p.name] = typed(String(raw), p.type);
    }
    // "All pages" follows the continuation; "Preview" makes one call.
    const pages = (event as SubmitEvent).submitter?.getAttribute('value') === 'pages';
    if (safe) void (pages ? runPages(parameters) : run(parameters));
    else setConfirming({ parameters, pages, url: urlAsSent(fn, texts) });
  };
  const path = `/solutions/${encodeURIComponent(solution)}/functions/${encodeURIComponent(fn.name)}/execute`;
  /** Every page, up to the platform's page cap, shown as each arrives. */
  const runPages = async (parameters: Record<string, unknown>) => {
    setConfirming(undefined);
    setBusy(true);
    setPageView({ at: 0, all: false });
    const started = performance.now();
    const outputs: unknown[] = [];
    const sents: Array<Sent | undefined> = [];
    const show = (more: Partial<Extract<Outcome, { kind: 'pages' }>>) =>
      setOutcome({
        kind: 'pages',
        outputs: [...outputs],
        sents: [...sents],
        done: false,
        ms: performance.now() - started,
        ...more,
      });
    try {
      await apiLines(path, { parameters, pages: true, sent: true }, (line) => {
        if (line.status === 'error') show({ done: true, error: line });
        else if ('pages' in line) show({ done: true, stopped: String(line.stopped) });
        else {
          outputs.push(line.output);
          sents.push(line.sent as Sent | undefined);
          show({});
        }
      });
    } catch (e) {
      show({
        done: true,
        error:
          e instanceof ApiError
            ? e.body
            : { code: 'UNREACHABLE', message: 'the platform could not be reached' },
      });
    } finally {
      setBusy(false);
    }
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
        sent?: Sent;
      }>('POST', path, mayTrace ? { parameters, trace: true } : { parameters, sent: true });
      setOutcome({
        kind: 'ok',
        output: answer.output,
        status: answer.status,
        ms: performance.now() - started,
        correlationId: answer.correlationId,
        ...(answer.trace ? { trace: answer.trace } : {}),
        ...(answer.sent ? { sent: answer.sent } : {}),
      });
    } catch (e) {
      const body =
        e instanceof ApiError
          ? e.body
          : { code: 'UNREACHABLE', message: 'the platform could not be reached' };
      const trace = body.trace as Exchange[] | undefined;
      const sent = body.sent as Sent | undefined;
      setOutcome({
        kind: 'error',
        body,
        status: e instanceof ApiError ? e.status : 0,
        ms: performance.now() - started,
        ...(trace ? { trace } : {}),
        ...(sent ? { sent } : {}),
      });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="preview" aria-label={`Preview of ${fn.name}`} ref={top}>
      <header class="function-header">
        <h2>{fn.name}</h2>
        <p>
          {/* The url as it will go: the defaults the platform knows filled in (the template on hover). */}
          <span class={`method method-${fn.method.toLowerCase()}`}>{fn.method}</span>{' '}
          <code class="url" title={fn.url}>
            <UrlText url={urlAsSent(fn)} />
          </code>
        </p>
        {sent && (
          <p class="sent">
            <span class="muted">Sent</span>{' '}
            <code class="url">
              <UrlText url={sent.url} />
            </code>
          </p>
        )}
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
              <label key={p.name} for={`param-${p.name}`}>
                <span class="param-name">
                  {p.name}
                  {mustGive(p) ? ' *' : ''}
                </span>{' '}
                <span class="muted">
                  ({p.location}, {p.type})
                </span>
                {p.type === 'array' || p.type === 'object' ? (
                  <textarea
                    id={`param-${p.name}`}
                    name={p.name}
                    class="json-input"
                    rows={3}
                    spellcheck={false}
                    defaultValue={initial(p.value)}
                    required={mustGive(p)}
                    placeholder={defaultExpression(p) ?? shownDefault(p) ?? EXAMPLE[p.type]}
                    aria-invalid={problems[p.name] !== undefined}
                    onInput={(e) => checkJson(p.name, p.type, e.target as HTMLTextAreaElement)}
                  />
                ) : isFileType(p.type) ? (
                  <FileField p={p} required={mustGive(p)} />
                ) : (
                  <input
                    id={`param-${p.name}`}
                    name={p.name}
                    defaultValue={initial(p.value)}
                    required={mustGive(p)}
                    placeholder={defaultExpression(p) ?? shownDefault(p)}
                  />
                )}
                <DefaultNote p={p} />
                {problems[p.name] && <span class="error field-problem">{problems[p.name]}</span>}
              </label>
            ),
          )}
          <button type="submit" value="one" disabled={busy || confirming !== undefined}>
            {busy ? 'Running…' : 'Preview'}
          </button>
          {fn.paged && (
            <>
              {' '}
              <button
                type="submit"
                value="pages"
                class="secondary"
                disabled={busy || confirming !== undefined}
              >
                All pages
              </button>
            </>
          )}
          {confirming && (
            <Confirm
              label={`Send ${fn.method}?`}
              action={`Send ${fn.method}`}
              onConfirm={() =>
                void (confirming.pages ? runPages(confirming.parameters) : run(confirming.parameters))
              }
              onCancel={() => setConfirming(undefined)}
            >
              This preview sends <strong>{fn.method}</strong> to{' '}
              {fn.url.startsWith('=') ? (
                'the address its url expression gives'
              ) : (
                <code class="url">
                  <UrlText url={confirming.url} />
                </code>
              )}
              : it may change data there.
            </Confirm>
          )}
        </form>
        <div class="result" aria-live="polite" ref={result}>
          <h3>Result</h3>
          {!outcome && <p class="muted">Run a preview to see the output.</p>}
          {outcome?.kind === 'ok' && (
            <>
              <div class="result-bar">
                <p class="status ok">
                  <span class="badge ok">{outcome.status}</span> {Math.round(outcome.ms)} ms
                </p>
                <CopyButtons output={outcome.output} url={sent?.url} />
              </div>
              <div class="json" data-testid="output">
                <JsonView value={outcome.output} />
              </div>
            </>
          )}
          {outcome?.kind === 'pages' && <Pages outcome={outcome} view={pageView} setView={setPageView} />}
          {outcome?.kind === 'error' && (
            <ErrorView body={outcome.body} status={outcome.status} ms={outcome.ms} solution={solution} />
          )}
          {outcome && outcome.kind !== 'pages' && outcome.trace && <Exchanges exchanges={outcome.trace} />}
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
      {typeof body.remoteStatus === 'number' ? (
        // What happened first: the service's answer is the figure; the platform's own status (a
        // gateway's 502 for any refusal from the service) is said as what it is.
        <>
          <p class="status failed">
            <span class="badge failed">{body.remoteStatus}</span> The service answered {body.remoteStatus} ·{' '}
            {Math.round(ms)} ms
          </p>
          <p class="muted platform-status">
            The platform passes it on as {String(body.code)}, HTTP {status} (its answer when the service it
            called refused).
          </p>
        </>
      ) : (
        <p class="status failed">
          <span class="badge failed">{String(body.code)}</span>{' '}
          {status > 0 ? `The platform answered ${status}` : 'No answer'} · {Math.round(ms)} ms
        </p>
      )}
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

/** The pages of a paged preview, one at a time (Previous/Next) or all together. */
function Pages({
  outcome,
  view,
  setView,
}: {
  outcome: Extract<Outcome, { kind: 'pages' }>;
  view: PageView;
  setView: (view: PageView) => void;
}) {
  const { all } = view;
  const setAt = (at: number) => setView({ at, all });
  const setAll = (all: boolean) => setView({ at: view.at, all });
  const count = outcome.outputs.length;
  const page = shownPage(outcome, view);
  const together = outcome.outputs.every(Array.isArray) ? outcome.outputs.flat() : outcome.outputs;
  const shown = all ? together : outcome.outputs[page];
  const sent = shownSent(outcome, view);
  return (
    <section aria-label="Pages">
      <p class={outcome.error ? 'status failed' : 'status ok'}>
        {count} page{count === 1 ? '' : 's'}
        {outcome.done
          ? outcome.error
            ? `, then ${String(outcome.error.code)}`
            : ', all of them'
          : ', more coming…'}{' '}
        · {Math.round(outcome.ms)} ms
      </p>
      {outcome.error && <p class="muted">{String(outcome.error.message ?? '')}</p>}
      {count > 0 && (
        <p class="pager">
          <button type="button" disabled={all || page === 0} onClick={() => setAt(page - 1)}>
            Previous page
          </button>{' '}
          <span>{all ? `all ${count} pages` : `page ${page + 1} of ${count}`}</span>{' '}
          <button type="button" disabled={all || page >= count - 1} onClick={() => setAt(page + 1)}>
            Next page
          </button>{' '}
          <button type="button" aria-pressed={all} onClick={() => setAll(!all)}>
            {all ? 'One page at a time' : 'All pages together'}
          </button>
        </p>
      )}
      {count > 0 && (
        <div class="result-bar">
          <p class="sent-page">
            {sent ? (
              <>
                <span class="muted">{all ? 'Last page sent' : `Page ${page + 1} sent`}</span>{' '}
                <code class="url">
                  {sent.method} <UrlText url={sent.url} />
                </code>
              </>
            ) : null}
          </p>
          <CopyButtons output={shown} url={sent?.url} />
        </div>
      )}
      {count > 0 && (
        <div class="json" data-testid="output">
          <JsonView value={shown} />
        </div>
      )}
    </section>
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
            <p>
              <button type="button" onClick={() => void navigator.clipboard?.writeText(curlOf(x.request!))}>
                Copy as curl
              </button>
            </p>
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

function typed(raw: string, type: string | undefined): unknown {
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

const EXAMPLE: Readonly<Record<string, string>> = { array: '["a", "b"]', object: '{"key": "value"}' };

/** Why `text` is not a JSON value of `type` (array or object), or undefined when it is (or empty). */
function jsonProblem(text: string, type: string | undefined): string | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const ok =
    type === 'array'
      ? Array.isArray(value)
      : typeof value === 'object' && value !== null && !Array.isArray(value);
  return ok
    ? undefined
    : `Expected ${type === 'array' ? 'a JSON list' : 'a JSON object'}, such as ${EXAMPLE[type === 'array' ? 'array' : 'object']}`;
}

type Parameter = FunctionInfo['parameters'][number];

/**
 * A url that may break after `/`, `?` and `&` (as a person reads it) before breaking anywhere; an
 * expression's `@ctx` path after its dots.
 */
function UrlText({ url, after = /(?<=[/?&])/ }: { url: string; after?: RegExp }) {
  // `http://host:port/` is one piece: a break only after a / ? & of the path (the root's / too
  // would leave `http://127.0.0.1:4020/` alone at a line's end); anywhere only when needed (CSS).
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\/?/i.exec(url)?.[0] ?? '';
  const rest = url.slice(origin.length).split(after);
  const parts = origin ? [origin + (rest[0] ?? ''), ...rest.slice(1)] : rest;
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  );
}

/**
 * A `type: file` (or `image`) parameter: a file picker that reads the chosen file into the data URI
 * the API takes, and the text field it fills, where a data URI or base64 can be pasted instead.
 */
function FileField({ p, required }: { p: Parameter; required: boolean }) {
  const text = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<string>();
  const choose = async (event: Event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (!file || !text.current) return;
    text.current.value = await readFileValue(file);
    setChosen(`${file.name}, ${file.type || 'application/octet-stream'}, ${file.size} bytes`);
  };
  return (
    <span class="file-field">
      <input
        type="file"
        aria-label={`${p.name}: choose a file`}
        onChange={(e) => void choose(e)}
        {...(p.type === 'image' ? { accept: 'image/*' } : {})}
      />
      <input
        id={`param-${p.name}`}
        name={p.name}
        ref={text}
        defaultValue={initial(p.value)}
        required={required}
        spellcheck={false}
        placeholder="data:text/plain;base64,… or base64"
        onInput={() => setChosen(undefined)}
      />
      <span class="param-default muted">
        {chosen
          ? `Sent as a data URI: ${chosen}`
          : 'Choose a file, or paste a data URI (data:<type>;base64,…) or base64.'}
      </span>
    </span>
  );
}

/** Which page "All pages" shows, or all of them together. */
interface PageView {
  readonly at: number;
  readonly all: boolean;
}

function shownPage(outcome: { outputs: readonly unknown[] }, view: PageView): number {
  return Math.min(view.at, Math.max(outcome.outputs.length - 1, 0));
}

/** The shown page's request; all together: the last page's. */
function shownSent(outcome: Extract<Outcome, { kind: 'pages' }>, view: PageView): Sent | undefined {
  return view.all ? lastSent(outcome.sents) : outcome.sents[shownPage(outcome, view)];
}

/** The last page's request that was told (a skipped page has none). */
function lastSent(sents: ReadonlyArray<Sent | undefined>): Sent | undefined {
  for (let i = sents.length - 1; i >= 0; i--) if (sents[i]) return sents[i];
  return undefined;
}

/** A value the form must have: required, and no default (fixed or expression) to fall back on. */
function mustGive(p: Parameter): boolean {
  return p.required && p.value === undefined;
}

/**
 * What a parameter takes when its field is left empty, under the field: the value the platform
 * worked out (a solution setting) or the expression it will evaluate. A fixed default is already in
 * the field.
 */
function DefaultNote({ p }: { p: Parameter }) {
  const expression = defaultExpression(p);
  if (expression !== undefined)
    return (
      <span class="param-default muted">
        Left empty:{' '}
        <code>
          <UrlText url={expression} after={/(?<=\.)/} />
        </code>
        , worked out when it runs
      </span>
    );
  if (typeof p.value !== 'string' || !p.value.startsWith('=')) return null;
  return (
    <span class="param-default muted">
      Left empty:{' '}
      <code>
        <UrlText url={shownDefault(p) ?? ''} />
      </code>
      , from{' '}
      <code>
        <UrlText url={p.value.slice(1)} after={/(?<=\.)/} />
      </code>
    </span>
  );
}

/** Copy what is shown, as a REST client offers: the output as JSON, the url as it was sent. */
function CopyButtons({ output, url }: { output: unknown; url: string | undefined }) {
  return (
    <p class="copy-buttons">
      <button
        type="button"
        onClick={() => void navigator.clipboard?.writeText(JSON.stringify(output, null, 2))}
      >
        Copy JSON
      </button>
      {url !== undefined && (
        <button type="button" onClick={() => void navigator.clipboard?.writeText(url)}>
          Copy url
        </button>
      )}
    </p>
  );
}

/**
 * The attempt's request as a curl command. It is the request as shown: credentials are already
 * masked (`***`) by the platform, so the command says where to put them instead of holding them.
 */
export function curlOf(request: {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}): string {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const parts = ['curl', '-X', request.method, quote(request.url)];
  for (const [name, value] of Object.entries(request.headers)) parts.push('-H', quote(`${name}: ${value}`));
  if (request.body) parts.push('--data-raw', quote(request.body));
  return parts.join(' ');
}
