import { Fragment } from 'preact';

/** A JSON value as a tree: objects and arrays fold (native <details>, so keyboard and screen readers work). */
export function JsonView({ value, name, open = true }: { value: unknown; name?: string; open?: boolean }) {
  const label = name === undefined ? null : <span class="json-key">{JSON.stringify(name)}: </span>;
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value);
    const [start, end] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    return (
      <details class="json-node" open={open}>
        <summary>
          {label}
          {start}
          <span class="json-count">
            {' '}
            {entries.length} {Array.isArray(value) ? 'item' : 'key'}
            {entries.length === 1 ? '' : 's'}
          </span>
        </summary>
        <div class="json-children">
          {entries.map(([k, v]) => (
            <JsonView
              key={k}
              value={v}
              {...(Array.isArray(value) ? {} : { name: k })}
              open={entries.length < 30}
            />
          ))}
        </div>
        <span>{end}</span>
      </details>
    );
  }
  return (
    <div class="json-leaf">
      {label}
      <span class={`json-${value === null ? 'null' : typeof value}`}>
        <Words text={JSON.stringify(value)} />
      </span>
    </div>
  );
}

/**
 * A value that wraps only at its spaces: each word whole (a timestamp or an id never breaks in
 * the middle at a phone's width); a word wider than the tree scrolls the tree's box sideways.
 */
function Words({ text }: { text: string }) {
  const words = text.split(' ');
  return (
    <>
      {words.map((word, i) => (
        <Fragment key={i}>
          {i > 0 && ' '}
          <span class="json-word">{word}</span>
        </Fragment>
      ))}
    </>
  );
}
