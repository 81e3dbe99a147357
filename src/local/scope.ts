import type { FunctionDefinition } from '../definition/schema/index.js';
import type { ScopeValue } from '../definition/schema/operation.js';

export interface ValueMatch {
  readonly column: string;
  readonly value: unknown;
}

export interface RangeMatch {
  readonly column: string;
  readonly from: unknown;
  readonly to: unknown;
}

/** Which rows a sync deletes before it writes; `keepTempIds` spares rows with temporary ids. */
export type ScopePlan =
  | { readonly mode: 'replace'; readonly keepTempIds: boolean }
  | {
      readonly mode: 'delete-matching';
      readonly values: ValueMatch[];
      readonly ranges: RangeMatch[];
      readonly keepTempIds: boolean;
    }
  | { readonly mode: 'merge' }
  | { readonly mode: 'operations' };

type ScopeFields = Pick<
  FunctionDefinition,
  'forRowsWithMatchingIds' | 'forRowsWithValues' | 'forRowsInRange' | 'keepTempIds' | 'operations'
>;

/**
 * The scope rules of conventions.md as one pure decision:
 * - `forRowsWithMatchingIds` with operations: only the operations write; without: upsert-merge on
 *   id, nothing deleted (`keepTempIds` does not apply);
 * - `forRowsWithValues` / `forRowsInRange` (both must hold when combined): delete the rows whose
 *   `data.column` equals the parameter's value / lies in [from, to], then insert;
 * - operations without a scope field: the operations decide;
 * - nothing: replace the whole table.
 * `resolve` turns each scope value as written into the value rows are matched against.
 */
export function decideScope(d: ScopeFields, resolve: ResolveScopeValue): ScopePlan {
  const hasOperations = (d.operations?.length ?? 0) > 0;
  if (d.forRowsWithMatchingIds) return hasOperations ? { mode: 'operations' } : { mode: 'merge' };
  const keepTempIds = d.keepTempIds === true;
  if (d.forRowsWithValues || d.forRowsInRange) {
    return {
      mode: 'delete-matching',
      values: Object.entries(d.forRowsWithValues ?? {}).map(([column, value]) => ({
        column,
        value: resolve(value),
      })),
      ranges: Object.entries(d.forRowsInRange ?? {}).map(([column, r]) => ({
        column,
        from: resolve(r.from),
        to: resolve(r.to),
      })),
      keepTempIds,
    };
  }
  if (hasOperations) return { mode: 'operations' };
  return { mode: 'replace', keepTempIds };
}

export type ResolveScopeValue = (written: ScopeValue) => unknown;

/**
 * How a scope value as written is read: an expression by its value (evaluated beforehand, keyed by
 * its text), the name of a declared parameter by that parameter's value (absent when it has none),
 * anything else as the literal it is.
 */
export function scopeResolver(
  declared: Iterable<string>,
  values: Readonly<Record<string, unknown>>,
  evaluated: ReadonlyMap<string, unknown> = new Map(),
): ResolveScopeValue {
  const names = new Set(declared);
  return (written) => {
    if (typeof written !== 'string') return written;
    if (evaluated.has(written)) return evaluated.get(written);
    return names.has(written) ? values[written] : written;
  };
}
