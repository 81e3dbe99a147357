import type { SourceFile } from '../definition/solution.js';

/**
 * The files an edit of one file may change the findings of, besides itself: the files whose text
 * names it (its old or its new name: a datasource's `function:`, a guard, `onSuccess`, an
 * `execute-action`) and the files of the same name (duplicate names). Conservative, by text: a
 * mention in a comment re-checks a file for nothing, but no reference is missed. solution.yaml
 * (settings, named expressions) and scripts are read by every file: all of them are re-checked.
 */
export function dependants(
  changed: string,
  names: ReadonlySet<string>,
  files: Iterable<SourceFile>,
  everything: boolean,
): Set<string> {
  const found = new Set<string>([changed]);
  for (const file of files) {
    if (everything || names.has(file.name)) found.add(file.path);
    else for (const name of names) if (name && file.yaml.text.includes(name)) found.add(file.path);
  }
  return found;
}
