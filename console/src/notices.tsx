/**
 * What a screen says after something it did: an error (announced at once) and what happened
 * (announced politely). Nothing when neither is set.
 */
export function Notices({ error, done }: { error?: string | undefined; done?: string | undefined }) {
  return (
    <>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {done && (
        <p class="done" role="status">
          {done}
        </p>
      )}
    </>
  );
}

/** A screen whose data has not come: the error that stopped it, else that it is loading. */
export function Loading({ error }: { error?: string | undefined }) {
  return error ? <Notices error={error} /> : <p class="muted">Loading…</p>;
}
