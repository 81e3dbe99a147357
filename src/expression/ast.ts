/**
 * Visits every object reachable from a parsed JSONata AST, depth first, without recursion: an
 * expression nested thousands deep (which JSONata may still parse) cannot overflow the stack here.
 * Each object is visited once, with the node holding it (`parent`) and the property it sits in
 * (`key`); items of an array count as held by the array's owner under the array's key.
 */
export function eachAstNode(
  root: unknown,
  visit: (node: AstObject, key: string | undefined, parent: AstObject | undefined) => void,
): void {
  const seen = new Set<object>();
  const stack: Array<{ value: unknown; key: string | undefined; parent: AstObject | undefined }> = [
    { value: root, key: undefined, parent: undefined },
  ];
  while (stack.length > 0) {
    const { value, key, parent } = stack.pop()!;
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    // JSONata keeps compiled regular expressions in the tree: they are leaves, not nodes.
    if (value instanceof RegExp) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key, parent });
      continue;
    }
    const node = value as AstObject;
    visit(node, key, parent);
    const entries = Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) {
      stack.push({ value: entries[i]![1], key: entries[i]![0], parent: node });
    }
  }
}

/** A node of JSONata's tree, read loosely (its published type lacks several properties). */
export type AstObject = Record<string, unknown>;
