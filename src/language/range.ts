import type { Diagnostic } from '../definition/diagnostic.js';

/** A range in a text: 0-based lines, and columns in UTF-16 code units (LSP's default encoding). */
export interface TextRange {
  readonly start: { readonly line: number; readonly character: number };
  readonly end: { readonly line: number; readonly character: number };
}

/**
 * Where a finding points (validate's `line:col`, 1-based) as a range an editor can underline: the
 * misspelt word when the finding has a did-you-mean (inside an expression, that word, not the whole
 * expression the finding's place starts); else from its place to the end of the word there (a key,
 * a name, an expression's token), at least one character.
 */
export function diagnosticRange(d: Pick<Diagnostic, 'line' | 'col' | 'suggestion'>, text: string): TextRange {
  const s = d.suggestion;
  if (s && s.length > 0) {
    const at = { line: Math.max(0, s.line - 1), character: Math.max(0, s.col - 1) };
    return { start: at, end: { line: at.line, character: at.character + s.length } };
  }
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
