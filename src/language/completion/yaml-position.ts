/** A key of the lines above a position: its name (or 0 for a list item), line and column. */
export interface Ancestor {
  readonly step: string | number;
  readonly line: number;
  readonly column: number;
}

/** Where the cursor is in a YAML file, read from the text alone (a file being typed is rarely valid). */
export type YamlPosition =
  | {
      /** At a key: `  meth|` or `- ent|` (a list item's first key, or a bare item). */
      readonly at: 'key';
      readonly ancestors: readonly Ancestor[];
      readonly column: number;
      readonly typed: string;
      readonly inItem: boolean;
    }
  | {
      /** In a value: `key: va|` (`key` is undefined for a bare list item `- va|`), or a block scalar's line. */
      readonly at: 'value';
      /** The keys above, up to the one holding the value (excluded). */
      readonly ancestors: readonly Ancestor[];
      readonly key: string | undefined;
      readonly line: number;
      readonly column: number;
      /** The value typed before the cursor, its opening quote left out. */
      readonly typed: string;
      /** The character where `typed` starts. */
      readonly from: number;
      /** The line is inside a block scalar (`key: |`) whose first line is `block`. */
      readonly block?: string;
    };

const KEY_LINE = /^(\s*)(-\s+)?([^\s:#'"{}[\],][^:#]*?):(?:\s+|$)/;

/** The position's meaning, or undefined inside a comment or a flow collection. */
export function yamlPosition(
  lines: readonly string[],
  line: number,
  character: number,
): YamlPosition | undefined {
  const text = lines[line] ?? '';
  const before = text.slice(0, character);
  const block = blockScalarAt(lines, line, before);
  if (block) {
    const typed = before.trimStart();
    return {
      at: 'value',
      ancestors: ancestorsAt(lines, block.line, block.column, block.inItem),
      key: block.key,
      line: block.line,
      column: block.column,
      typed,
      from: before.length - typed.length,
      block: block.first,
    };
  }
  const key = /^(\s*)(-\s+)?([\w-]*)$/.exec(before);
  if (key) {
    const column = key[1]!.length + (key[2]?.length ?? 0);
    return {
      at: 'key',
      ancestors: ancestorsAt(lines, line, column, !!key[2]),
      column,
      typed: key[3]!,
      inItem: !!key[2],
    };
  }
  const pair = KEY_LINE.exec(before);
  if (pair) {
    const column = pair[1]!.length + (pair[2]?.length ?? 0);
    const rest = before.slice(pair[0].length);
    if (/^\s*#|^[[{]/.test(rest)) return undefined;
    const quote = /^['"]/.test(rest) ? 1 : 0;
    return {
      at: 'value',
      ancestors: ancestorsAt(lines, line, column, !!pair[2]),
      key: pair[3]!.trim(),
      line,
      column,
      typed: rest.slice(quote),
      from: pair[0].length + quote,
    };
  }
  const item = /^(\s*)-\s+(['"]?)/.exec(before);
  if (item && !before.slice(item[0].length).includes('#')) {
    // A bare list item's value: the list is the key above it.
    return {
      at: 'value',
      ancestors: ancestorsAt(lines, line, item[1]!.length + 2, true),
      key: undefined,
      line,
      column: item[1]!.length,
      typed: before.slice(item[0].length),
      from: item[0].length,
    };
  }
  return undefined;
}

/**
 * The keys a key at `column` of `line` is under, outermost first, each with its line: read from the
 * less indented keys (and list items) above it. A key after `- ` is in a list item (a step `0`).
 */
export function ancestorsAt(
  lines: readonly string[],
  line: number,
  column: number,
  inItem: boolean,
): Ancestor[] {
  const path: Ancestor[] = inItem ? [{ step: 0, line, column: column - 2 }] : [];
  let limit = column - (inItem ? 2 : 0);
  for (let i = line - 1; i >= 0 && limit > 0; i--) {
    const text = lines[i] ?? '';
    if (/^\s*(#.*)?$/.test(text)) continue;
    const m = /^(\s*)(-\s+)?([\w-]+):\s*(#.*|[|>][-+]?\d*\s*)?$/.exec(text) ?? KEY_LINE.exec(text);
    const item = /^(\s*)-\s/.exec(text);
    const indent = /^\s*/.exec(text)![0].length;
    if (item && item[1]!.length < limit && !m?.[2]) {
      path.unshift({ step: 0, line: i, column: item[1]!.length });
      limit = item[1]!.length;
      continue;
    }
    if (!m) {
      if (indent < limit) limit = indent;
      continue;
    }
    const at = m[1]!.length + (m[2]?.length ?? 0);
    if (at >= limit) {
      // `- entity: x` above a later key of the same item: the key is a sibling, the item an ancestor.
      if (m[2] && m[1]!.length < limit) {
        path.unshift({ step: 0, line: i, column: m[1]!.length });
        limit = m[1]!.length;
      }
      continue;
    }
    path.unshift({ step: m[3]!.trim(), line: i, column: at });
    if (m[2]) path.unshift({ step: 0, line: i, column: m[1]!.length });
    limit = m[2] ? m[1]!.length : at;
  }
  return path;
}

/** The keys of the mapping a key at `column` of `line` is in, with their values as written (text). */
export function siblings(lines: readonly string[], line: number, column: number): Map<string, string> {
  const found = new Map<string, string>();
  const read = (i: number): 'stop' | 'item' | undefined => {
    const text = lines[i] ?? '';
    if (/^\s*(#.*)?$/.test(text)) return undefined;
    // trimEnd first, and a value that ends on a non-space: no backtracking over a long run of spaces
    const m = /^(\s*)(-\s+)?([^\s:#'"{}[\],][^:#]*?):(?:\s+(.*\S))?$/.exec(text.trimEnd());
    const indent = /^\s*/.exec(text)![0].length;
    if (m?.[2] && m[1]!.length + m[2].length === column) {
      found.set(m[3]!.trim(), unquote(m[4] ?? ''));
      return 'item';
    }
    if (indent < column) return 'stop';
    if (m && indent === column) found.set(m[3]!.trim(), unquote(m[4] ?? ''));
    return undefined;
  };
  if (read(line) !== 'item')
    for (let i = line - 1; i >= 0; i--) {
      const r = read(i);
      if (r) break;
    }
  for (let i = line + 1; i < lines.length; i++) {
    const text = lines[i] ?? '';
    if (/^\s*-\s/.test(text) && /^\s*/.exec(text)![0].length + 2 <= column) break;
    if (read(i) === 'stop') break;
  }
  return found;
}

function unquote(value: string): string {
  const v = withoutComment(value);
  return /^(['"]).*\1$/.test(v) ? v.slice(1, -1) : v;
}

/** A value without its trailing ` # comment` (a `#` after whitespace), found by a scan, not a regex. */
function withoutComment(value: string): string {
  for (let at = value.indexOf('#'); at !== -1; at = value.indexOf('#', at + 1))
    if (at > 0 && /\s/.test(value[at - 1]!)) return value.slice(0, at).trimEnd();
  return value;
}

/**
 * The block scalar (`key: |`, `key: >-`) the cursor's line is inside of, if any, with its first
 * content line: the nearest less indented line above opens it (content lines less indented than
 * the cursor's, such as the `{` line of a JSONata object, are passed over).
 */
function blockScalarAt(
  lines: readonly string[],
  line: number,
  before: string,
): { key: string; line: number; column: number; inItem: boolean; first: string } | undefined {
  let limit = /^\s*/.exec(before)![0].length;
  for (let i = line - 1; i >= 0 && limit > 0; i--) {
    const text = lines[i] ?? '';
    if (/^\s*$/.test(text)) continue;
    const indent = /^\s*/.exec(text)![0].length;
    if (indent >= limit) continue;
    const m = /^(\s*)(-\s+)?([\w-]+):\s*[|>][-+]?\d*\s*(#.*)?$/.exec(text);
    if (m) {
      const first = lines.slice(i + 1, line + 1).find((l) => l.trim() !== '') ?? '';
      return {
        key: m[3]!,
        line: i,
        column: m[1]!.length + (m[2]?.length ?? 0),
        inItem: !!m[2],
        first: first.trim(),
      };
    }
    if (KEY_LINE.test(text) || /^\s*-(\s|$)/.test(text)) return undefined;
    limit = indent;
  }
  return undefined;
}

/**
 * What the text says of the mappings along a key path: each one's `type:` as written, nested as the
 * file's data would be (`{ action: { type: 'action.execute-entity', options: {} } }`), so the schema
 * branch a type names is found while the file does not parse. `line` and `column`: the cursor's key.
 */
export function writtenTypes(
  lines: readonly string[],
  ancestors: readonly Ancestor[],
  line: number,
  column: number,
): unknown {
  const mapping = (at: { line: number; column: number }): Record<string, unknown> => {
    const type = siblings(lines, at.line, at.column).get('type');
    return type ? { type } : {};
  };
  let value: unknown = mapping({ line, column });
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const { step } = ancestors[i]!;
    if (typeof step === 'number') value = [value];
    else value = { ...mapping(ancestors[i]!), [step]: value };
  }
  return value;
}
