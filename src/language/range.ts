import type { Diagnostic } from '../definition/diagnostic.js';

/** A range in a text: 0-based lines, and columns in UTF-16 code units (LSP's default encoding). */
export interface TextRange {
  readonly start: { readonly line: number; readonly character: number };
  readonly end: { readonly line: number; readonly character: number };
}

/**
 * Where a finding points (validate's `line:col`, 1-based) as a range an editor can underline: from
 * there to the end of the word (a key, a name, an expression's token), at least one character.
 */
export function diagnosticRange(d: Pick<Diagnostic, 'line' | 'col'>, text: string): TextRange {
  const line = Math.max(0, d.line - 1);
  const start = Math.max(0, d.col - 1);
  const lineText = lineAt(text, line);
  const word = /^[^\s:#,[\]{}'"]+/.exec(lineText.slice(start))?.[0].length ?? 0;
  return { start: { line, character: start }, end: { line, character: start + Math.max(1, word) } };
}

export function lineAt(text: string, line: number): string {
  let from = 0;
  for (let i = 0; i < line; i++) {
    const next = text.indexOf('\n', from);
    if (next === -1) return '';
    from = next + 1;
  }
  const end = text.indexOf('\n', from);
  return text.slice(from, end === -1 ? undefined : end).replace(/\r$/, '');
}
