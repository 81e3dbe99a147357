/**
 * A function file's YAML, highlighted line by line: comments, keys, `=` expressions and other
 * values. A function file is flat enough that a per-line reading is right for every line that
 * matters to an author; the text of block scalars (`|`, `>`) stays unstyled.
 */
export function YamlSource({ text }: { text: string }) {
  // Inside a block scalar (a key ending in `|` or `>`): lines indented deeper than that key.
  let blockIndent = -1;
  const lines = text.split('\n').map((line, i) => {
    const indent = line.length - line.trimStart().length;
    if (blockIndent >= 0 && (line.trim() === '' || indent > blockIndent)) return [i > 0 && '\n', line];
    blockIndent = /:\s*[|>][-+0-9]*\s*(#.*)?$/.test(line) ? indent : -1;
    return [i > 0 && '\n', <Line key={i} line={line} />];
  });
  return <pre class="source yaml">{lines}</pre>;
}

const KEY_LINE = /^(\s*(?:-\s+)?)((?:"[^"]*"|'[^']*'|[^\s#:'"][^:#]*?)\s*:)(?=\s|$)(.*)$/;

function Line({ line }: { line: string }) {
  const comment = /^\s*#/.test(line);
  if (comment) return <span class="y-comment">{line}</span>;
  const keyed = KEY_LINE.exec(line);
  if (!keyed) {
    const item = /^(\s*-\s+)(.*)$/.exec(line);
    return item ? (
      <>
        {item[1]}
        <Value text={item[2] ?? ''} />
      </>
    ) : (
      line
    );
  }
  const [, indent, key, rest] = keyed;
  return (
    <>
      {indent}
      <span class="y-key">{key}</span>
      <Value text={rest ?? ''} />
    </>
  );
}

/** A value and a trailing comment (a `#` after white space, outside quotes). */
function Value({ text }: { text: string }) {
  const at = commentStart(text);
  const value = at < 0 ? text : text.slice(0, at);
  const comment = at < 0 ? '' : text.slice(at);
  const trimmed = value.trim().replace(/^["']/, '');
  const kind = trimmed.startsWith('=')
    ? 'y-expr'
    : /^(true|false|null|~)$/.test(trimmed)
      ? 'y-const'
      : /^-?\d+(\.\d+)?$/.test(trimmed)
        ? 'y-number'
        : trimmed === '' || trimmed === '|' || trimmed === '>'
          ? ''
          : 'y-string';
  return (
    <>
      {kind ? <span class={kind}>{value}</span> : value}
      {comment && <span class="y-comment">{comment}</span>}
    </>
  );
}

function commentStart(text: string): number {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1] ?? ''))) {
      return i;
    }
  }
  return -1;
}
