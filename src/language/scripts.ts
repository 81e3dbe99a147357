import { basename } from 'node:path';
import { rangeOf } from './position.js';
import type { TextRange } from './range.js';

/** A function a script declares, and where its name is. */
export interface ScriptDeclaration {
  readonly name: string;
  readonly range: TextRange;
}

// `function name`, `async function* name`, `const name =`: the first declaration of a name is taken
// (an `export { name }` list names a declaration above it). Read from the text, as a reader would:
// the service loads no script (validation's sandbox does, at a cost an editor's click should not pay).
const DECLARATION = /\b(?:function\s*\*?\s*|(?:const|let|var)\s+)([A-Za-z_$][\w$]*)/g;

/** The functions (and top-level names) a script's text declares, each once, in order. */
export function scriptDeclarations(text: string): ScriptDeclaration[] {
  const seen = new Set<string>();
  const out: ScriptDeclaration[] = [];
  for (const match of text.matchAll(DECLARATION)) {
    const name = match[1]!;
    if (seen.has(name)) continue;
    seen.add(name);
    const start = match.index + match[0].length - name.length;
    out.push({ name, range: rangeOf(text, start, start + name.length) });
  }
  return out;
}

/** `$<module>.<fn>` calls a module by its file's name: `scripts/expressions/<module>.js`. */
export function moduleName(path: string): string {
  return basename(path).replace(/\.js$/, '');
}
