import { UsageError } from '../errors/restfn-error.js';

/**
 * An id as people type it, git style: the whole id, or a prefix of exactly one of `ids`. An
 * ambiguous prefix is an error listing the candidates; one that matches nothing is left as it is
 * (whoever looks it up says it is not there).
 */
export function resolveIdPrefix(given: string, ids: readonly string[], what: string): string {
  if (ids.includes(given)) return given;
  const matches = ids.filter((id) => id.startsWith(given));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new UsageError(
      `'${given}' is the start of ${matches.length} ${what} ids: ${matches.join(', ')}; give more of it`,
      'ID_AMBIGUOUS',
    );
  }
  return given;
}
