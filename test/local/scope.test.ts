import { describe, expect, test } from 'vitest';
import { decideScope, scopeResolver } from '../../src/local/scope.js';

const op = [{ type: 'operation.upsert-merge' as const }];

describe('decideScope (conventions.md scope table)', () => {
  test.each([
    ['no scope field, no operations: replace the whole table', {}, { mode: 'replace', keepTempIds: false }],
    [
      'keepTempIds spares temp rows on replace',
      { keepTempIds: true },
      { mode: 'replace', keepTempIds: true },
    ],
    [
      'forRowsWithMatchingIds: upsert-merge, nothing deleted',
      { forRowsWithMatchingIds: true },
      { mode: 'merge' },
    ],
    [
      'forRowsWithMatchingIds ignores keepTempIds',
      { forRowsWithMatchingIds: true, keepTempIds: true },
      { mode: 'merge' },
    ],
    [
      'forRowsWithMatchingIds with operations: only operations',
      { forRowsWithMatchingIds: true, operations: op },
      { mode: 'operations' },
    ],
    ['operations without scope: only operations', { operations: op }, { mode: 'operations' }],
  ])('%s', (_, definition, plan) => {
    expect(decideScope(definition, scopeResolver([], {}))).toEqual(plan);
  });

  test('forRowsWithValues and forRowsInRange resolve parameter values, and combine', () => {
    expect(
      decideScope(
        {
          forRowsWithValues: { region: 'r' },
          forRowsInRange: { updated: { from: 'a', to: 'b' } },
          keepTempIds: true,
        },
        scopeResolver(['r', 'a', 'b'], { r: 'eu', a: 10, b: 20 }),
      ),
    ).toEqual({
      mode: 'delete-matching',
      values: [{ column: 'region', value: 'eu' }],
      ranges: [{ column: 'updated', from: 10, to: 20 }],
      keepTempIds: true,
    });
  });

  test('scope values may be literals and expressions; a declared parameter without a value is absent', () => {
    const resolve = scopeResolver(
      ['region', 'unset'],
      { region: 'eu' },
      new Map([['=@ctx.parameters.x', 5]]),
    );
    expect(
      decideScope(
        {
          forRowsWithValues: { region: 'region', kind: 'customer', active: true, gone: 'unset' },
          forRowsInRange: { score: { from: 0, to: '=@ctx.parameters.x' } },
        },
        resolve,
      ),
    ).toEqual({
      mode: 'delete-matching',
      values: [
        { column: 'region', value: 'eu' },
        { column: 'kind', value: 'customer' },
        { column: 'active', value: true },
        { column: 'gone', value: undefined },
      ],
      ranges: [{ column: 'score', from: 0, to: 5 }],
      keepTempIds: false,
    });
  });
});
