import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type FunctionInfo } from './api.js';
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

/** The platform's audit of a solution (admins): filter by function, outcome, correlation id. */
export function Executions({
  solution,
  functions,
}: {
  solution: string;
  functions: readonly FunctionInfo[];
}) {
  const [filter, setFilter] = useState({ function: '', outcome: '', correlationId: '' });
  const [entries, setEntries] = useState<Entry[]>();
  const [error, setError] = useState<string>();
  const [open, setOpen] = useState<number | null>(null);
  useEffect(() => {
    const query = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== ''));
    api<{ entries: Entry[] }>('GET', `/solutions/${encodeURIComponent(solution)}/executions?${query}`)
      .then((a) => {
        setEntries(a.entries);
        setOpen(null);
      })
      .catch((e: Error) => setError(e instanceof ApiError ? e.message : String(e)));
  }, [solution, filter.function, filter.outcome, filter.correlationId]);
  const set = (name: keyof typeof filter) => (e: Event) =>
    setFilter({ ...filter, [name]: (e.target as HTMLInputElement | HTMLSelectElement).value.trim() });
  return (
    <section class="credentials" aria-label="Executions">
      <h2>Executions</h2>
      <div class="filters">
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
      <Notices error={error} />
      {entries && entries.length === 0 && <p class="muted">Nothing recorded for these filters.</p>}
      {entries && entries.length > 0 && (
        <table class="responsive">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Outcome</th>
              <th scope="col">ms</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => {
              const detail = e.detail ? (JSON.parse(e.detail) as Record<string, string | number>) : undefined;
              return (
                <tr key={`${e.at}-${i}`}>
                  <td data-label="When">{new Date(e.at).toLocaleString()}</td>
                  <td data-label="Who">{e.actor}</td>
                  <td data-label="What">
                    {e.action} {e.target && <code>{e.target}</code>}
                  </td>
                  <td data-label="Outcome">
                    <span class={e.outcome === 'ok' ? 'status ok' : 'status failed'}>
                      {detail ? (
                        <button
                          type="button"
                          aria-expanded={open === i}
                          onClick={() => setOpen(open === i ? null : i)}
                        >
                          {e.outcome}
                        </button>
                      ) : (
                        e.outcome
                      )}
                    </span>
                    {open === i && detail && (
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
                    )}
                  </td>
                  <td data-label="ms">{e.durationMs ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
