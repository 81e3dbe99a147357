import { eachAstNode } from './ast.js';
import { analyse } from './compile.js';

/** A hyphen written so that a reader cannot tell a name from a subtraction: where, and how to say which. */
export interface AmbiguousHyphen {
  /** Zero-based index in the source of the word that holds the hyphen. */
  readonly index: number;
  readonly message: string;
}

const WORD_CHAR = /[A-Za-z0-9_]/;

/**
 * The hyphens of an expression that read one way and may be meant the other (issue 37):
 * - in an `@ctx` path, a step such as `count-1` is one name (hyphens are part of names there, as
 *   the platform reads them), though it looks like a subtraction of a number;
 * - anywhere else, `a-b` with no spaces is JSONata's subtraction, though it looks like the name of a
 *   field (`$.x-total-count`), and a field so named reads as nothing.
 * Each says how to write it unambiguously. Expressions that do not compile have none.
 */
export function ambiguousHyphens(source: string): AmbiguousHyphen[] {
  if (!source.includes('-')) return [];
  const analysed = analyse(source);
  if (!analysed) return [];
  const found: AmbiguousHyphen[] = [];
  for (const { name, index } of analysed.translation.hyphenatedSteps) {
    const number = /-(\d)/.exec(name);
    if (!number) continue;
    const [left, right] = [name.slice(0, number.index), name.slice(number.index + 1)];
    found.push({
      index,
      message: `'${name}' in an @ctx path is read as one name (in @ctx paths hyphens are part of names); for a subtraction write spaces around the hyphen (${left} - ${right}), for the name write it backquoted (\`${name}\`)`,
    });
  }
  const text = analysed.translation.text;
  eachAstNode(analysed.ast, (node) => {
    if (node.type !== 'binary' || node.value !== '-' || typeof node.position !== 'number') return;
    // JSONata's position is just past the operator.
    const at = node.position - 1;
    if (text[at] !== '-' || !WORD_CHAR.test(text[at - 1] ?? '') || !/[A-Za-z_]/.test(text[at + 1] ?? ''))
      return;
    // The whole word, hyphens included: `a-b-c` is two subtractions, one finding.
    let start = at - 1;
    while (
      start > 0 &&
      (WORD_CHAR.test(text[start - 1]!) || (text[start - 1] === '-' && WORD_CHAR.test(text[start - 2] ?? '')))
    )
      start--;
    let end = at + 1;
    while (
      end < text.length &&
      (WORD_CHAR.test(text[end]!) || (text[end] === '-' && WORD_CHAR.test(text[end + 1] ?? '')))
    )
      end++;
    const word = text.slice(start, end);
    found.push({
      index: analysed.translation.sourceIndex(start),
      message: `'${word}' is JSONata's subtraction (${word.replaceAll('-', ' minus ')}): outside @ctx paths a hyphen is an operator; for a field named '${word}' write it backquoted (\`${word}\`), for a subtraction write spaces around the hyphen`,
    });
  });
  const seen = new Set<number>();
  return found.filter((f) => !seen.has(f.index) && seen.add(f.index)).sort((a, b) => a.index - b.index);
}
