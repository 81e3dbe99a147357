import { useState } from 'preact/hooks';
import { ApiError, api, type DatasourceInfo } from './api.js';
import { JsonView } from './json-view.js';

interface Preview {
  readonly entities: ReadonlyArray<{
    entity: string;
    function: string;
    pages: number;
    records: number;
    stopped: string;
    error?: { code: string; message: string };
  }>;
  readonly tables: Readonly<Record<string, { rows: unknown[]; total: number }>>;
  readonly rows?: readonly unknown[];
}

/**
 * A datasource's preview: its functions run as a sync would (the first pages), and each table
 * shows the rows it would get. Nothing is stored: not on the platform, not on any device.
 */
export function DatasourcePreview({
  solution,
  datasource,
}: {
  solution: string;
  datasource: DatasourceInfo;
}) {
  const [preview, setPreview] = useState<Preview>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setPreview(
        await api<Preview>(
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
    <section class="preview" aria-label={`Preview of datasource ${datasource.name}`}>
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
                from <code>{e.function}</code>
              </>
            ) : (
              ' (kept locally, no function)'
            )}
          </li>
        ))}
      </ul>
      <p>
        <button type="submit" onClick={() => void run()} disabled={busy}>
          {busy ? 'Running…' : 'Preview'}
        </button>{' '}
        <span class="muted">runs its functions (the first pages) and stores nothing</span>
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {preview && (
        <section aria-label="Tables">
          {preview.entities.map((e) => {
            const table = preview.tables[e.entity];
            return (
              <div key={e.entity} class="table-preview">
                <h3>
                  {e.entity} <span class="muted">← {e.function}</span>
                </h3>
                <p class={e.error ? 'status failed' : 'status ok'}>
                  {e.pages} page{e.pages === 1 ? '' : 's'}, {e.records} records
                  {e.stopped === 'page-cap' ? ' (the preview stops after a few pages)' : ''}
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
              <div class="json">
                <JsonView value={preview.rows} />
              </div>
            </>
          )}
        </section>
      )}
    </section>
  );
}
