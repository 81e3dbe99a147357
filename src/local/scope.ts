import type { FunctionDefinition } from '../definition/schema/index.js';

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
 */
export function decideScope(d: ScopeFields, parameters: Readonly<Record<string, unknown>>): ScopePlan {
  const hasOperations = (d.operations?.length ?? 0) > 0;
  if (d.forRowsWithMatchingIds) return hasOperations ? { mode: 'operations' } : { mode: 'merge' };
  const keepTempIds = d.keepTempIds === true;
  if (d.forRowsWithValues || d.forRowsInRange) {
    return {
      mode: 'delete-matching',
      values: Object.entries(d.forRowsWithValues ?? {}).map(([column, param]) => ({
        column,
        value: parameters[param],
      })),
      ranges: Object.entries(d.forRowsInRange ?? {}).map(([column, r]) => ({
        column,
        from: parameters[r.from],
        to: parameters[r.to],
      })),
      keepTempIds,
    };
  }
  if (hasOperations) return { mode: 'operations' };
  return { mode: 'replace', keepTempIds };
}
