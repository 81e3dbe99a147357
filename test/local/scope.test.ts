import { describe, expect, test } from 'vitest';
import { decideScope } from '../../src/local/scope.js';

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
    expect(decideScope(definition, {})).toEqual(plan);
  });

  test('forRowsWithValues and forRowsInRange resolve parameter values, and combine', () => {
    expect(
      decideScope(
        {
          forRowsWithValues: { region: 'r' },
          forRowsInRange: { updated: { from: 'a', to: 'b' } },
          keepTempIds: true,
        },
        { r: 'eu', a: 10, b: 20 },
      ),
    ).toEqual({
      mode: 'delete-matching',
      values: [{ column: 'region', value: 'eu' }],
      ranges: [{ column: 'updated', from: 10, to: 20 }],
      keepTempIds: true,
    });
  });
});
