import type { Solution, SourceFile } from '../../definition/solution.js';
import type { CompletionEntry } from './entry.js';
import { objectOr } from './plain-data.js';
import type { SolutionIndex } from './solution-index.js';

/** A credential's key as a source gives it (the local store, the platform): never its value. */
export interface CredentialKey {
  readonly key: string;
  readonly kind: string;
  /** Where it is stored: `local` (this machine's store) or `platform` (`RESTFN_SERVER`). */
  readonly origin: 'local' | 'platform';
}

export function functionNames(solution: Solution, from: number): CompletionEntry[] {
  return [...solution.functions.values()].map((f) => ({
    label: f.name,
    kind: 'function',
    ...(functionDetail(f) ? { detail: functionDetail(f) } : {}),
    from,
  }));
}

function functionDetail(f: SourceFile<'function'>): string | undefined {
  const d = objectOr(f.data);
  return [d.method, d.url].filter((v) => typeof v === 'string').join(' ') || undefined;
}

/**
 * The tables the solution names. The value being typed is in the file's text too: a name only this
 * file gives, equal to what is typed, is that partial word, not a table.
 */
export function entityNames(
  index: SolutionIndex,
  file: SourceFile,
  typed: string,
  from: number,
): CompletionEntry[] {
  const own = `${file.kind} ${file.name}`;
  const partial = (name: string, sources: readonly string[]) =>
    name === typed && sources.length === 1 && sources[0] === own;
  return [...index.entities]
    .filter(([name, sources]) => !partial(name, sources))
    .map(([name, sources]) => ({
      label: name,
      kind: 'entity',
      detail: sources.join(', '),
      documentation: `Local table, named in ${sources.join(', ')}.`,
      from,
    }));
}

/** The global actions, but the file's own (an action that runs itself never ends). */
export function actionNames(index: SolutionIndex, file: SourceFile, from: number): CompletionEntry[] {
  return [...index.actions.values()]
    .filter((a) => a.path !== file.path)
    .map((a) => {
      const data = objectOr(a.data);
      const type = objectOr(data.action).type;
      const parameters = Object.keys(objectOr(data.parameters));
      return {
        label: a.name,
        kind: 'action',
        ...(typeof type === 'string' ? { detail: type } : {}),
        documentation: `Global action${parameters.length > 0 ? `; parameters: ${parameters.join(', ')}` : ''}.`,
        from,
      };
    });
}

/** The stored credentials' keys: a key in both places once, the local store's first. */
export function credentialKeys(keys: readonly CredentialKey[], from: number): CompletionEntry[] {
  const seen = new Map<string, CredentialKey[]>();
  for (const k of keys) seen.set(k.key, [...(seen.get(k.key) ?? []), k]);
  return [...seen].map(([key, where]) => ({
    label: key,
    kind: 'credential',
    detail: `${where[0]!.kind} credential (${where.map((w) => (w.origin === 'local' ? 'this machine' : 'the platform')).join(', ')})`,
    documentation: 'The key of a stored credential: its value is never shown (restfn credentials list).',
    from,
  }));
}
