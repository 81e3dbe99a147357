import type { FileKind } from '../../definition/schema/index.js';
import type { CompletionEntry } from './entry.js';
import { nodesAt, propertiesOf, resolve, schemaOf } from './schema.js';

/** The keys the schema allows under `path` (with their descriptions), but those already written. */
export function keyCompletions(
  kind: FileKind,
  path: ReadonlyArray<string | number>,
  written: ReadonlySet<string>,
): CompletionEntry[] {
  const root = schemaOf(kind);
  const entries = new Map<string, CompletionEntry>();
  for (const node of nodesAt(kind, path))
    for (const [name, property] of Object.entries(propertiesOf(root, node))) {
      if (entries.has(name) || written.has(name)) continue;
      const description = resolve(root, property as Record<string, unknown>).description as
        | string
        | undefined;
      entries.set(name, { label: name, kind: 'key', ...(description ? { documentation: description } : {}) });
    }
  return [...entries.values()];
}
