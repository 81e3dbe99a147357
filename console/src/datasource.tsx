import type { DatasourceInfo } from './api.js';

/**
 * A datasource: the tables it fills and from which functions. It has no preview on the platform:
 * a sync runs the solution's own SQL (`queries:`, the datasource's `query`), which the platform
 * does not run; `restfn sync NAME` shows it on a device, and each function previews on its own.
 */
export function DatasourceView({ solution, datasource }: { solution: string; datasource: DatasourceInfo }) {
  return (
    <section class="preview" aria-label={`Datasource ${datasource.name}`}>
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
      <p class="muted">
        Preview each function here. To see the tables a sync fills, run{' '}
        <code>restfn sync {datasource.name}</code> on a device: a sync runs the solution's own SQL, which the
        platform does not.
      </p>
    </section>
  );
}
