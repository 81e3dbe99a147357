import { useRef, useState } from 'preact/hooks';
import { ApiError, api, type DatasourceInfo, type DatasourcePreview, type FunctionInfo } from './api.js';
import { Confirm } from './confirm.js';
import { useIntoView } from './into-view.js';
import { JsonView } from './json-view.js';
import { Notices } from './notices.js';

/**
 * A datasource: the tables it fills and from which functions, and its preview. The preview runs its
 * functions as a sync would (the first pages) and its SQL in a sandbox on the platform, and shows
 * the rows each table would get. Nothing is stored: not on the platform, not on any device. A
 * datasource whose functions send something other than GET asks first, as a function's preview does.
 */
export function DatasourceView({
  solution,
  datasource,
  functions,
}: {
  solution: string;
  datasource: DatasourceInfo;
  functions: readonly FunctionInfo[];
}) {
  const [preview, setPreview] = useState<DatasourcePreview>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const top = useRef<HTMLElement>(null);
  useIntoView(top);
  const writes = datasource.entities
    .map((e) => functions.find((f) => f.name === e.function))
    .filter((f): f is FunctionInfo => f !== undefined && f.method !== 'GET' && f.method !== 'HEAD');
  const run = async () => {
    setConfirming(false);
    setBusy(true);
    setError(undefined);
    try {
      setPreview(
        await api<DatasourcePreview>(
          'POST',
          `/solutions/${encodeURIComponent(solution)}/datasources/${encodeURIComponent(datasource.name)}/preview`,
          {},
        ),
      );
    } catch (e) {
      setError(e instanceof ApiError ? `${e.code}: ${e.message}` : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="preview" aria-label={`Datasource ${datasource.name}`} ref={top}>
      <header class="function-header">
        <h2>{datasource.name}</h2>
        <p class="muted">datasource</p>
      </header>
      <ul>
        {datasource.entities.map((e) => (
          <li key={e.entity}>
            table <code>{e.entity}</code>
            {e.function ? (
              <>
                {' '}
                from{' '}
                <a href={`#/s/${encodeURIComponent(solution)}/f/${encodeURIComponent(e.function)}`}>
                  {e.function}
                </a>
              </>
            ) : (
              ' (kept locally, no function)'
            )}
          </li>
        ))}
      </ul>
      <p>
        <button
          type="submit"
          onClick={() => (writes.length > 0 ? setConfirming(true) : void run())}
          disabled={busy || confirming}
        >
          {busy ? 'Running…' : 'Preview'}
        </button>{' '}
        <span class="muted">runs its functions (the first pages) and its SQL; stores nothing</span>
      </p>
      {confirming && (
        <Confirm
          label="Send the datasource's requests?"
          action="Run the preview"
          onConfirm={() => void run()}
          onCancel={() => setConfirming(false)}
        >
          This preview sends{' '}
          {writes.map((f, i) => (
            <span key={f.name}>
              {i > 0 ? ', ' : ''}
              <strong>{f.method}</strong> ({f.name})
            </span>
          ))}
          : it may change data there.
        </Confirm>
      )}
      <Notices error={error} />
      {preview && (
        <section aria-label="Tables">
          {preview.entities.map((e) => {
            const table = preview.tables[e.entity];
            return (
              <div key={e.entity}>
                <h3>
                  {e.entity} <span class="muted">← {e.function}</span>
                </h3>
                <p class={e.error && e.stopped !== 'page-cap' ? 'status failed' : 'status ok'}>
                  {e.pages} page{e.pages === 1 ? '' : 's'}, {e.records} record{e.records === 1 ? '' : 's'}
                  {e.stopped === 'page-cap' ? ' (a preview stops after a few pages)' : ''}
                  {e.error && e.stopped !== 'page-cap' ? `, then ${e.error.code}: ${e.error.message}` : ''}
                  {table ? ` · showing ${table.rows.length} of ${table.total} rows` : ''}
                </p>
                {table && (
                  <div class="json" data-testid={`table-${e.entity}`}>
                    <JsonView value={table.rows} />
                  </div>
                )}
              </div>
            );
          })}
          {preview.rows && (
            <>
              <h3>Query result</h3>
              <div class="json" data-testid="query-rows">
                <JsonView value={preview.rows} />
              </div>
            </>
          )}
        </section>
      )}
    </section>
  );
}
