import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api.js';
import { Confirm } from './confirm.js';
import { changedFiles, lineDiff, withContext } from './diff.js';
import { Loading, Notices } from './notices.js';

interface VersionRow {
  readonly version: number;
  readonly published: string;
  readonly publishedBy: string;
  /** When retention removed its files (`restfn serve --keep-versions`); its row stays. */
  readonly removed?: string;
  readonly removedBy?: string;
}

type Files = Record<string, string>;

/**
 * A solution's history: every version (who published it when), a diff between any two, and, for
 * those who may publish, "publish this version again" (a new version with the older files).
 */
export function Versions({ solution, mayPublish }: { solution: string; mayPublish: boolean }) {
  const base = `/solutions/${encodeURIComponent(solution)}/versions`;
  const [versions, setVersions] = useState<VersionRow[]>();
  const [from, setFrom] = useState<number>();
  const [to, setTo] = useState<number>();
  const [files, setFiles] = useState<Record<number, Files>>({});
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const [confirming, setConfirming] = useState<number>();
  const load = async () => {
    const { versions: list } = await api<{ versions: VersionRow[] }>('GET', base);
    setVersions(list);
    // Only versions with their files can be compared.
    const kept = list.filter((v) => !v.removed);
    setTo(kept[0]?.version);
    setFrom(kept[1]?.version ?? kept[0]?.version);
  };
  useEffect(() => {
    load().catch((e: Error) => setError(e.message));
  }, [solution]);
  useEffect(() => {
    for (const v of [from, to]) {
      if (v === undefined || files[v]) continue;
      api<{ files: Files }>('GET', `${base}/${v}`)
        .then((a) => setFiles((known) => ({ ...known, [v]: a.files })))
        .catch((e: Error) => setError(e.message));
    }
  }, [from, to]);
  const republish = async (version: number) => {
    setConfirming(undefined);
    setError(undefined);
    try {
      const answer = await api<{ version: number; unchanged: boolean }>('POST', `${base}/${version}/publish`);
      setDone(
        answer.unchanged
          ? `Version ${version} is what is published already (version ${answer.version}).`
          : `Published version ${version} again, as version ${answer.version}.`,
      );
      await load();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    }
  };
  if (!versions) return <Loading error={error} />;
  const kept = versions.filter((v) => !v.removed);
  const choose = (label: string, value: number | undefined, set: (v: number) => void) => (
    <label>
      {label}
      <select value={value} onChange={(e) => set(Number((e.target as HTMLSelectElement).value))}>
        {kept.map((v) => (
          <option key={v.version} value={v.version}>
            version {v.version}
          </option>
        ))}
      </select>
    </label>
  );
  const before = from === undefined ? undefined : files[from];
  const after = to === undefined ? undefined : files[to];
  return (
    <section class="credentials" aria-label="Versions">
      <h2>Versions</h2>
      <Notices error={error} done={done} />
      <table class="responsive">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Published</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v, i) => (
            <tr key={v.version}>
              <td data-label="Version">
                {v.version}
                {i === 0 && <span class="muted"> (current)</span>}
                {v.removed && <span class="muted"> (removed)</span>}
              </td>
              <td data-label="Published">
                {new Date(v.published).toLocaleString()} <span class="muted">by {v.publishedBy}</span>
                {v.removed && (
                  <span class="muted">
                    {' '}
                    · files removed {new Date(v.removed).toLocaleString()} by {v.removedBy ?? 'retention'}{' '}
                    (the platform keeps the latest versions)
                  </span>
                )}
              </td>
              <td class="actions">
                {mayPublish && i > 0 && !v.removed && (
                  <button
                    type="button"
                    onClick={() => setConfirming(v.version)}
                    aria-label={`Publish version ${v.version} again`}
                  >
                    Publish again
                  </button>
                )}
                {confirming === v.version && (
                  <Confirm
                    label={`Publish version ${v.version} again?`}
                    action={`Publish version ${v.version}`}
                    onConfirm={() => void republish(v.version)}
                    onCancel={() => setConfirming(undefined)}
                  >
                    Publish version {v.version} again? Its files become version {versions[0]!.version + 1},
                    the current one; apps get them at their next call.
                  </Confirm>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {kept.length > 1 && (
        <section aria-label="Changes between versions">
          <h3>Changes</h3>
          <div class="filters">
            {choose('From', from, setFrom)}
            {choose('To', to, setTo)}
          </div>
          {before && after ? <Changes before={before} after={after} /> : <p class="muted">Loading…</p>}
        </section>
      )}
    </section>
  );
}

/** Lines compared in all, past which files are said to differ without a line diff (the tab stays quick). */
const LINE_BUDGET = 20_000;

function Changes({ before, after }: { before: Files; after: Files }) {
  const changes = changedFiles(before, after);
  if (changes.length === 0) return <p class="muted">The two versions have the same files.</p>;
  let budget = LINE_BUDGET;
  return (
    <>
      {changes.map(({ path, change }) => {
        const size = (before[path] ?? '').split('\n').length + (after[path] ?? '').split('\n').length;
        budget -= size;
        const lines = budget >= 0 ? lineDiff(before[path] ?? '', after[path] ?? '') : undefined;
        return (
          <details key={path} open class="file-diff">
            <summary>
              <code>{path}</code> <span class="muted">{change}</span>
            </summary>
            {lines ? (
              <pre class="source diff">
                {withContext(lines).map((l, i) =>
                  l.kind === 'fold' ? (
                    <span key={i} class="diff-fold">
                      ⋯ {l.count} unchanged line{l.count === 1 ? '' : 's'}
                    </span>
                  ) : (
                    // One block per line: its background is its own, never over the line above.
                    <span
                      key={i}
                      class={l.kind === '+' ? 'diff-add' : l.kind === '-' ? 'diff-del' : 'diff-same'}
                    >
                      {l.kind} {l.text}
                    </span>
                  ),
                )}
              </pre>
            ) : (
              <p class="muted">Too large to compare here.</p>
            )}
          </details>
        );
      })}
    </>
  );
}
