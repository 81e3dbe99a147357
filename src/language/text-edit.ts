import type { TextRange } from './range.js';

/** A change of a document's text: `range` replaced by `newText` (an insertion when the range is empty). */
export interface TextEdit {
  readonly range: TextRange;
  readonly newText: string;
}

/** The 0-based line and UTF-16 character of an offset in `text`. */
export function positionAt(text: string, offset: number): TextRange['start'] {
  let line = 0;
  let from = 0;
  for (let next = text.indexOf('\n'); next !== -1 && next < offset; next = text.indexOf('\n', from)) {
    line++;
    from = next + 1;
  }
  return { line, character: offset - from };
}

/** The offset of a 0-based line and character (past the end: the end). */
export function offsetAt(text: string, position: TextRange['start']): number {
  let from = 0;
  for (let i = 0; i < position.line; i++) {
    const next = text.indexOf('\n', from);
    if (next === -1) return text.length;
    from = next + 1;
  }
  return Math.min(text.length, from + position.character);
}

/** The edit replacing `[start, end)` (offsets) of `text`. */
export function editAt(text: string, start: number, end: number, newText: string): TextEdit {
  return { range: { start: positionAt(text, start), end: positionAt(text, end) }, newText };
}

/** `text` with non-overlapping `edits` applied (as an editor applies a WorkspaceEdit's edits). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const placed = edits
    .map((e) => ({
      start: offsetAt(text, e.range.start),
      end: offsetAt(text, e.range.end),
      newText: e.newText,
    }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const e of placed) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}
