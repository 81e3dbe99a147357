import { describe, expect, it } from 'vitest';
import { outcomeTone } from '../../console/src/audit-labels.js';
import { lineDiff, withContext } from '../../console/src/diff.js';

/** The console's pure decisions: which diff lines show, and an outcome's colour. */
describe('a diff with its context', () => {
  const text = (n: number, changed?: number) =>
    Array.from({ length: n }, (_, i) => (i === changed ? `line ${i} changed` : `line ${i}`)).join('\n');

  it('keeps three unchanged lines around a change and folds the rest, counted', () => {
    const rows = withContext(lineDiff(text(40), text(40, 30))!);
    expect(rows[0]).toEqual({ kind: 'fold', count: 27 });
    expect(rows.slice(1, 4).map((r) => r.kind)).toEqual([' ', ' ', ' ']);
    expect(rows.slice(4, 6)).toEqual([
      { kind: '-', text: 'line 30' },
      { kind: '+', text: 'line 30 changed' },
    ]);
    expect(rows.slice(6, 9).map((r) => r.kind)).toEqual([' ', ' ', ' ']);
    expect(rows[9]).toEqual({ kind: 'fold', count: 6 });
    expect(rows).toHaveLength(10);
  });

  it('folds nothing near the edges or between close changes; all of an unchanged text folds', () => {
    const near = withContext(lineDiff('a\nb\nc', 'A\nb\nC')!);
    expect(near.some((r) => r.kind === 'fold')).toBe(false);
    expect(withContext(lineDiff(text(5), text(5))!)).toEqual([{ kind: 'fold', count: 5 }]);
  });
});

describe("an outcome's tone", () => {
  it('ok green, the platform’s limits amber, skipped grey, any other code red', () => {
    expect(
      ['ok', 'RATE_LIMITED', 'PLATFORM_BUSY', 'skipped', 'REMOTE_ERROR', 'TIMEOUT'].map(outcomeTone),
    ).toEqual(['ok', 'limited', 'limited', 'neutral', 'failed', 'failed']);
  });
});
