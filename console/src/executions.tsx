import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type FunctionInfo } from './api.js';
import { ACTION_MEANING, KINDS, outcomeTone } from './audit-labels.js';
import { Notices } from './notices.js';

interface Entry {
  readonly at: string;
  readonly actor: string;
  readonly action: string;
  readonly target: string | null;
  readonly outcome: string;
  readonly correlationId: string | null;
  readonly durationMs: number | null;
  readonly detail?: string | null;
}

/** The screen's filters: the API's own query names, so the address and the request say the same. */
const FILTERS = ['kind', 'function', 'outcome', 'correlationId'] as const;
type Filter = Record<(typeof FILTERS)[number], string>;

/** The filters the address holds (`#/s/crm/executions?kind=changes`): a link shows the same list. */
function filterOfAddress(): Filter {
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  return Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ''])) as Filter;
}

function queryOf(filter: Filter): string {
  return new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== '')).toString();
}

/** The platform's audit of a solution (admins): filter by kind, function, outcome, correlation id. */
export function Executions({
  solution,
  functions,
}: {
  solution: string;
  functions: readonly FunctionInfo[];
}) {
  const [filter, setFilter] = useState(filterOfAddress);
  const [entries, setEntries] = useState<Entry[]>();
  const [error, setError] = useState<string>();
  const [open, setOpen] = useState<number | null>(null);
  const query = queryOf(filter);
  // A link or an edited address with other filters (the same screen, so no new component).
  useEffect(() => {
    const follow = () => setFilter(filterOfAddress());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  useEffect(() => {
    // Replaced, not pushed: a filter is no page to go back to; no hashchange, so no new screen.
    const path = location.hash.split('?')[0];
    history.replaceState(history.state, '', `${path}${query ? `?${query}` : ''}`);
    api<{ entries: Entry[] }>('GET', `/solutions/${encodeURIComponent(solution)}/executions?${query}`)
      .then((a) => {
        setEntries(a.entries);
        setOpen(null);
      })
      .catch((e: Error) => setError(e instanceof ApiError ? e.message : String(e)));
  }, [solution, query]);
  const set = (name: keyof Filter) => (e: Event) =>
    setFilter({ ...filter, [name]: (e.target as HTMLInputElement | HTMLSelectElement).value.trim() });
  return (
    <section class="credentials" aria-label="Executions">
      <h2>Executions</h2>
      <div class="filters audit-filters">
        <label>
          Show
          <select value={filter.kind} onChange={set('kind')}>
            {KINDS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Function
          <select value={filter.function} onChange={set('function')}>
            <option value="">all</option>
            {functions.map((f) => (
              <option key={f.name} value={f.name}>
                {f.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Outcome
          <input value={filter.outcome} onChange={set('outcome')} placeholder="ok, REMOTE_ERROR, …" />
        </label>
        <label>
          Correlation id
          <input value={filter.correlationId} onChange={set('correlationId')} />
        </label>
      </div>
      <dl class="legend" aria-label="What the entries mean">
        <dt>execute</dt>
        <dd>{ACTION_MEANING.execute}</dd>
        <dt>call</dt>
        <dd>{ACTION_MEANING.call}</dd>
      </dl>
      <Notices error={error} />
      {entries && entries.length === 0 && <p class="muted">Nothing recorded for these filters.</p>}
      {entries && entries.length > 0 && (
        <table class="responsive audit-log">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What ran or changed</th>
              <th scope="col">Outcome</th>
              <th scope="col">ms</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => {
              const detail = e.detail ? (JSON.parse(e.detail) as Record<string, string | number>) : undefined;
              const tone = outcomeTone(e.outcome);
              return (
                <Fragment key={`${e.at}-${i}`}>
                  <tr>
                    <td data-label="When" class="at">
                      {new Date(e.at).toLocaleString()}
                    </td>
                    <td data-label="Who" class="actor">
                      {e.actor}
                    </td>
                    <td data-label="What" class="what">
                      <span class="event" title={ACTION_MEANING[e.action]}>
                        {e.action}
                      </span>{' '}
                      {e.target && <code>{e.target}</code>}
                    </td>
                    <td data-label="Outcome" class="outcome">
                      {detail ? (
                        <button
                          type="button"
                          class={`label label-${tone}`}
                          aria-expanded={open === i}
                          title="Show what went wrong"
                          onClick={() => setOpen(open === i ? null : i)}
                        >
                          {e.outcome}
                          <span aria-hidden="true">{open === i ? ' ▴' : ' ▾'}</span>
                        </button>
                      ) : (
                        <span class={`label label-${tone}`}>{e.outcome}</span>
                      )}
                    </td>
                    <td data-label="ms" class={e.durationMs === null ? 'ms' : 'ms timed'}>
                      {e.durationMs ?? ''}
                    </td>
                  </tr>
                  {open === i && detail && (
                    <tr class="detail-row">
                      <td colSpan={5}>
                        <section class="error-result" aria-label="Error details">
                          {detail.title !== undefined && <h4>{detail.title}</h4>}
                          {detail.description !== undefined && <p>{detail.description}</p>}
                          <p class="muted">{detail.message}</p>
                          {e.correlationId && (
                            <p class="muted">
                              correlation id <code>{e.correlationId}</code>
                            </p>
                          )}
                        </section>
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
