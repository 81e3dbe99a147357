import type { FunctionDefinition, Operation } from '../schema/index.js';
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

/** Every parameter a scope block names (function level and `operation.delete-insert`) must be declared. */
export const scopeParameters: FunctionRule = (file, r) => {
  const d = file.definition;
  const declared = new Set(Object.keys(d.parameters ?? {}));
  checkScope(d, [], declared, r);
  for (const [path, op] of operationsOf(d)) {
    if (op.type === 'operation.delete-insert') checkScope(op, path, declared, r);
  }
};

function checkScope(blocks: ScopeBlocks, at: PropertyPath, declared: Set<string>, r: Reporter) {
  const check = (name: string, path: PropertyPath) => {
    if (!declared.has(name)) {
      r.report(
        'SCOPE_UNKNOWN_PARAM',
        `scope names parameter '${name}', which the function does not declare; add it under parameters`,
        path,
      );
    }
  };
  for (const [column, name] of Object.entries(blocks.forRowsWithValues ?? {})) {
    check(name, [...at, 'forRowsWithValues', column]);
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
