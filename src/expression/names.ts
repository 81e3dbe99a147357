import { eachAstNode } from './ast.js';
import { analyse } from './compile.js';

/** The parts of JSONata's AST nodes this walk reads (its published type lacks `bind`, `focus`, `index`). */
interface AstNode {
  type?: string;
  value?: unknown;
  position?: number;
  focus?: unknown;
  index?: unknown;
  lhs?: AstNode;
  arguments?: AstNode[];
}

/** A `$name` an expression reads or calls without binding it itself. */
export interface FreeName {
  readonly name: string;
  /** Called as a function (`$name(...)`), not only read. */
  readonly called: boolean;
  /** Zero-based index of the `$` in the source text. */
  readonly index: number;
}

/**
 * The variables and functions an expression uses that it does not bind itself (`$x := ...`, lambda
 * arguments, `@$item` and `#$i` bindings). Binding anywhere in the expression counts, which is
 * lenient about scope but never reports a name the expression defines. `$` and `$$` are not names.
 */
export function freeNames(source: string): readonly FreeName[] {
  let names = known.get(source);
  if (!names) {
    names = Object.freeze(findFreeNames(source));
    known.set(source, names);
  }
  return names;
}

/**
 * Free names by source text, like the compile cache: validating a solution asks for the same
 * expressions in file after file (the same transform, the same `when`), and each walk of the tree
 * is a good part of validation's cost.
 */
const known = new Map<string, readonly FreeName[]>();

function findFreeNames(source: string): FreeName[] {
  const analysed = analyse(source);
  if (!analysed) return [];
  const bound = new Set<string>();
  const used: Array<{ node: AstNode; called: boolean }> = [];
  // Iterative: an expression nested deep enough to parse must not overflow this walk.
  eachAstNode(analysed.ast, (value, key, parent) => {
    const node = value as AstNode;
    if (typeof node.focus === 'string') bound.add(node.focus);
    if (typeof node.index === 'string') bound.add(node.index);
    if (node.type === 'bind' && node.lhs?.type === 'variable') bound.add(String(node.lhs.value));
    if (node.type === 'index') bound.add(String(node.value)); // `#$i` after a filter is a stage
    if (node.type === 'lambda') for (const arg of node.arguments ?? []) bound.add(String(arg.value));
    if (node.type === 'variable' && node.value !== '' && node.value !== '$') {
      const called = key === 'procedure' && (parent?.type === 'function' || parent?.type === 'partial');
      used.push({ node, called });
    }
  });
  return used
    .filter(({ node }) => !bound.has(String(node.value)))
    .map(({ node, called }) => {
      const name = String(node.value);
      // JSONata's position is just past the token; the token is `$` and the name.
      const end = analysed.translation.sourceIndex(node.position ?? 0);
      return { name, called, index: Math.max(0, end - name.length - 1) };
    })
    .sort((a, b) => a.index - b.index);
}
