import { useRef, useState } from 'preact/hooks';
import { type ActionInfo, ApiError, api, type ActionPreview as Preview } from './api.js';
import { contextLabel, keyFirst } from './context-label.js';
import { useIntoView } from './into-view.js';
import { JsonView } from './json-view.js';
import { Notices } from './notices.js';

/**
 * An action's preview: the screen's values it reads (one field per `@ctx` path), then the local
 * change it would make and the calls it would queue. Nothing is sent and nothing is stored.
 */
export function ActionPreview({ solution, action }: { solution: string; action: ActionInfo }) {
  const [preview, setPreview] = useState<Preview>();
  const [error, setError] = useState<string>();
  const top = useRef<HTMLElement>(null);
  useIntoView(top);
  const run = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const context: Record<string, unknown> = {};
    for (const path of action.reads) {
      const value = form.get(path);
      if (value === null || value === '') continue;
      const names = path.split('.');
      let at = context;
      for (const name of names.slice(0, -1)) {
        at[name] ??= {};
        at = at[name] as Record<string, unknown>;
      }
      at[names.at(-1)!] = String(value);
    }
    setError(undefined);
    try {
      setPreview(
        await api<Preview>(
          'POST',
          `/solutions/${encodeURIComponent(solution)}/actions/${encodeURIComponent(action.name)}/preview`,
          { context },
        ),
      );
    } catch (e) {
      setPreview(undefined);
      setError(e instanceof ApiError ? `${e.code}: ${e.message}` : String(e));
    }
  };
  return (
    <section class="preview" aria-label={`Preview of action ${action.name}`} ref={top}>
      <header class="function-header">
        <h2>{action.name}</h2>
        <p class="muted">
          action{action.method ? ` · ${action.method}` : ''}
          {action.entity ? ` · table ${action.entity}` : ''}
          {action.function ? ` · calls ${action.function}` : ''}
        </p>
      </header>
      <div class="panes">
        <form class="parameters" onSubmit={run}>
          <h3>What the screen gives</h3>
          {action.reads.length === 0 && <p class="muted">Nothing: the action reads no screen value.</p>}
          {keyFirst(action.reads).map((path) => (
            <label key={path}>
              {/* What a person calls it; the path the action reads it by, beside it. */}
              <span class="param-name">{contextLabel(path)}</span>{' '}
              <code class="context-path muted">@ctx.{path}</code>
              <input name={path} />
            </label>
          ))}
          <button type="submit">Preview</button>
          <p class="muted">Shows what it would change and queue; nothing is sent or stored.</p>
        </form>
        <div class="result" aria-live="polite">
          <h3>Result</h3>
          <Notices error={error} />
          {!preview && !error && <p class="muted">Run a preview to see the change.</p>}
          {preview && (
            <section aria-label="Action result">
              {/* The platform keeps no device tables: the preview starts from the item the form gave. */}
              <p class="muted">
                What a device's local table <code>{preview.entity ?? action.entity ?? ''}</code> would hold,
                starting from the item the form gives (the platform keeps no local rows).
              </p>
              <h4>{preview.before ? 'The item as the screen gives it' : 'No item given: a new row'}</h4>
              {preview.before && (
                <div class="json">
                  <JsonView value={preview.before} />
                </div>
              )}
              <h4>
                {preview.after
                  ? 'The row on the device after the action'
                  : 'The row on the device after the action: none (deleted, or no local change)'}
              </h4>
              {preview.after && (
                <div class="json" data-testid="row-after">
                  <JsonView value={preview.after} />
                </div>
              )}
              <h4>Calls it would queue</h4>
              {/* The device's call also sends fields of its local row, which the platform has not got. */}
              <p class="muted queue-note">
                From the values above only: on a device the call also sends fields of its local row.
              </p>
              {preview.commands.length === 0 ? (
                <p class="muted">None.</p>
              ) : (
                preview.commands.map((c, i) => (
                  <div key={i} class="json" data-testid="queued-call">
                    <JsonView value={c} />
                  </div>
                ))
              )}
            </section>
          )}
        </div>
      </div>
    </section>
  );
}
