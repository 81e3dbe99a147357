import { createRequire } from 'node:module';
import type { Node, Pair } from 'yaml';
import type { Position as FilePosition, PropertyPath } from '../definition/yaml-file.js';
import type { TextRange } from './range.js';

// Required, as yaml-file.ts does: `yaml` is CommonJS, and importing it costs a scan of its files.
const { isMap, isPair, isScalar, isSeq } = createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** An LSP position: 0-based line, and the character as a UTF-16 code unit index in that line. */
export interface TextPosition {
  readonly line: number;
  readonly character: number;
}

/**
 * The offset of a position in a text. JavaScript strings are UTF-16, as LSP's characters are, so a
 * character index in a line is an index in the string: an emoji before the position counts two.
 * A character past the line's end is its end (editors may ask at the end of a line).
 */
export function offsetAt(text: string, { line, character }: TextPosition): number {
  let from = 0;
  for (let i = 0; i < line; i++) {
    const next = text.indexOf('\n', from);
    if (next === -1) return text.length;
    from = next + 1;
  }
  let end = text.indexOf('\n', from);
  if (end === -1) end = text.length;
  if (end > from && text[end - 1] === '\r') end--;
  return Math.min(from + Math.max(0, character), end);
}

/** The position of an offset in a text (the inverse of `offsetAt`). */
export function positionAt(text: string, offset: number): TextPosition {
  const at = Math.max(0, Math.min(offset, text.length));
  let line = 0;
  let start = 0;
  for (let next = text.indexOf('\n'); next !== -1 && next < at; next = text.indexOf('\n', next + 1)) {
    line++;
    start = next + 1;
  }
  return { line, character: at - start };
}

/** The range between two offsets of a text. */
export function rangeOf(text: string, start: number, end: number): TextRange {
  return { start: positionAt(text, start), end: positionAt(text, end) };
}

/** A validate-style position (1-based line and column) as a range of `length` characters. */
export function rangeFrom(at: Pick<FilePosition, 'line' | 'col'>, length: number): TextRange {
  const start = { line: at.line - 1, character: at.col - 1 };
  return { start, end: { line: start.line, character: start.character + length } };
}

export function contains(range: TextRange, p: TextPosition): boolean {
  const after =
    p.line > range.start.line || (p.line === range.start.line && p.character >= range.start.character);
  const before = p.line < range.end.line || (p.line === range.end.line && p.character <= range.end.character);
  return after && before;
}

/** What is at a position of a YAML document: a map's key, or a scalar value, and where it is. */
export interface NodeAt {
  /** The path of the value: of the key's value for a key, of the scalar for a value. */
  readonly path: PropertyPath;
  readonly on: 'key' | 'value';
  /** The key's or the scalar's range. */
  readonly range: TextRange;
  /** A scalar's value (a key's name for a key). */
  readonly value: unknown;
}

/**
 * The key or scalar value at a position of a parsed YAML document (`SourceFile.yaml.doc`), found from
 * the nodes' source ranges; a position between nodes (indentation, a comment) finds nothing. A
 * position just after a word still counts as on it (where an editor's cursor is after typing it).
 */
export function nodeAt(doc: { contents: unknown }, text: string, position: TextPosition): NodeAt | undefined {
  const offset = offsetAt(text, position);
  const inside = (node: unknown): node is Node =>
    !!node &&
    !!(node as Node).range &&
    offset >= (node as Node).range![0] &&
    offset <= (node as Node).range![1];
  const found = (node: Node, path: PropertyPath, on: NodeAt['on']): NodeAt => ({
    path,
    on,
    range: rangeOf(text, node.range![0], node.range![1]),
    value: isScalar(node) ? node.value : undefined,
  });
  let node: unknown = doc.contents;
  const path: Array<string | number> = [];
  for (;;) {
    if (isMap(node)) {
      // A block collection's range runs to the start of the next line: on the next key, the key wins.
      const items = node.items as Pair[];
      const onKey = items.find((p) => inside(p.key));
      const pair = onKey ?? items.findLast((p) => inside(p.value));
      if (!pair || !isScalar(pair.key)) return undefined;
      const key = String(pair.key.value);
      if (onKey) return found(pair.key as Node, [...path, key], 'key');
      path.push(key);
      node = pair.value;
    } else if (isSeq(node)) {
      const index = node.items.findLastIndex((item) => inside(item));
      if (index === -1) return undefined;
      path.push(index);
      node = node.items[index];
    } else if (isPair(node)) {
      return undefined;
    } else {
      return isScalar(node) && inside(node) ? found(node, [...path], 'value') : undefined;
    }
  }
}

/** The node at a path of a parsed document, and, for a map's value, its pair (key included). */
export function nodeOf(
  doc: { contents: unknown },
  path: PropertyPath,
): { node: Node; pair?: Pair } | undefined {
  let node: unknown = doc.contents;
  let pair: Pair | undefined;
  for (const step of path) {
    if (isMap(node)) {
      pair = (node.items as Pair[]).find((p) => isScalar(p.key) && String(p.key.value) === String(step));
      node = pair?.value;
    } else if (isSeq(node) && typeof step === 'number') {
      pair = undefined;
      node = node.items[step];
    } else return undefined;
  }
  return node ? { node: node as Node, ...(pair ? { pair } : {}) } : undefined;
}
