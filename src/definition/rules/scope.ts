import { isExpression } from '../../expression/source.js';
import type { FunctionDefinition, Operation } from '../schema/index.js';
import type { ScopeValue } from '../schema/operation.js';
import { closest } from '../suggest.js';
import type { PropertyPath } from '../yaml-file.js';
import type { FunctionRule, Reporter } from './reporter.js';

type ScopeBlocks = Pick<FunctionDefinition, 'forRowsWithValues' | 'forRowsInRange'>;

export const scopeConflict: FunctionRule = (file, r) => {
  const d = file.definition;
  if (!d.forRowsWithMatchingIds) {
    return;
  }
  for (const key of ['forRowsWithValues', 'forRowsInRange'] as const) {
    if (d[key] !== undefined) {
      r.report(
        'SCOPE_CONFLICT',
        `forRowsWithMatchingIds cannot be combined with ${key}: matching ids never deletes rows, ${key} deletes rows in scope; keep one`,
        [key],
        { key: true },
      );
    }
  }
  if (d.keepTempIds) {
    r.report(
      'KEEP_TEMP_IDS_IGNORED',
      'keepTempIds has no effect with forRowsWithMatchingIds (no row is deleted); remove it',
      ['keepTempIds'],
      { key: true },
    );
  }
};

/**
 * Scope values are parameter names, expressions or literals. A literal text that is close to a
 * declared parameter's name is most likely a misspelt name: a warning says how it is read.
 */
export const scopeParameters: FunctionRule = (file, r) => {
  const d = file.definition;
  const declared = Object.keys(d.parameters ?? {});
  checkScope(d, [], declared, r);
  for (const [path, op] of operationsOf(d)) {
    if ('forRowsWithValues' in op || 'forRowsInRange' in op) checkScope(op, path, declared, r);
  }
};

function checkScope(blocks: ScopeBlocks, at: PropertyPath, declared: readonly string[], r: Reporter) {
  const check = (value: ScopeValue, path: PropertyPath) => {
    if (typeof value !== 'string' || isExpression(value) || declared.includes(value)) return;
    // Tighter than key suggestions: short literal texts ('eu') are often near some parameter name.
    const near = closest(value, declared, Math.max(1, Math.floor(value.length / 4)));
    if (!near) return;
    r.report(
      'SCOPE_UNKNOWN_PARAM',
      `scope value '${value}' is no parameter of this function, so rows are matched against the text '${value}' (did you mean '${near}'?); write the parameter's name, or quote the text as an expression (="${value}") to keep it`,
      path,
      { meant: { word: value, text: near } },
    );
  };
  for (const [column, value] of Object.entries(blocks.forRowsWithValues ?? {})) {
    check(value, [...at, 'forRowsWithValues', column]);
  }
  for (const [column, range] of Object.entries(blocks.forRowsInRange ?? {})) {
    check(range.from, [...at, 'forRowsInRange', column, 'from']);
    check(range.to, [...at, 'forRowsInRange', column, 'to']);
  }
}

/** Every operation of a function with its path: top level, guard, and error handlers. */
export function* operationsOf(d: FunctionDefinition): Generator<[PropertyPath, Operation]> {
  for (const [i, op] of (d.operations ?? []).entries()) yield [['operations', i], op];
  for (const [i, op] of (d.guard?.operations ?? []).entries()) yield [['guard', 'operations', i], op];
  for (const [h, handler] of (d.error ?? []).entries()) {
    for (const [i, op] of (handler.operations ?? []).entries()) yield [['error', h, 'operations', i], op];
  }
}
