import type { FileKind } from '../../definition/schema/index.js';
import type { CompletionEntry } from './entry.js';
import { childValue, nodesAt, propertiesOf, resolve, schemaOf } from './schema.js';

/**
 * The keys the schema allows under `path` (with their descriptions), but those already written; of
 * branches told apart by `type`, those of the type `data` (the file's, as the text says it) names.
 */
export function keyCompletions(
  kind: FileKind,
  path: ReadonlyArray<string | number>,
  written: ReadonlySet<string>,
  data?: unknown,
): CompletionEntry[] {
  const root = schemaOf(kind);
  const entries = new Map<string, CompletionEntry>();
  const value = path.reduce<unknown>(childValue, data);
  for (const node of nodesAt(kind, path, data))
    for (const [name, property] of Object.entries(propertiesOf(root, node, value))) {
      if (entries.has(name) || written.has(name)) continue;
      const description = resolve(root, property as Record<string, unknown>).description as
        | string
        | undefined;
      entries.set(name, { label: name, kind: 'key', ...(description ? { documentation: description } : {}) });
    }
  return [...entries.values()];
}
