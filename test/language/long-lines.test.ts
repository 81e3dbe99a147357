import { describe, expect, it } from 'vitest';
import { selectColumns } from '../../src/language/completion/datasource-columns.js';
import { siblings } from '../../src/language/completion/yaml-position.js';
import { maskedUrl } from '../../src/language/summary.js';

// Pathological lines that made completion quadratic (seconds); asserted on results, with a generous timeout.
// 120,000 spaces: without the fix each such test runs well past its timeout; with it, milliseconds.
const spaces = ' '.repeat(120_000);

describe('completion on long lines', () => {
  it('reads a key whose value has a long run of spaces inside it', { timeout: 15_000 }, () => {
    const lines = ['name: f', `description: x${spaces}y`, `other: a${spaces}`, `note: v${spaces}# c`];
    const found = siblings(lines, 0, 0);
    expect(found.get('description')).toBe(`x${spaces}y`);
    expect(found.get('other')).toBe('a');
    expect(found.get('note')).toBe('v');
  });

  it('keeps the result on normal lines', () => {
    const lines = ['name: f', "title: 'quoted' # note", 'url: a#b', '- item: 1', 'empty:'];
    const found = siblings(lines, 0, 0);
    expect(found.get('name')).toBe('f');
    expect(found.get('title')).toBe('quoted');
    expect(found.get('url')).toBe('a#b');
    expect(found.get('empty')).toBe('');
  });

  it('reads a select list with no from after a long run of spaces', { timeout: 15_000 }, () => {
    expect(selectColumns(`select a${spaces}b`)).toEqual([]);
    expect(selectColumns(`select a,${spaces}b from t`)).toEqual(['a', 'b']);
    expect(selectColumns("SELECT DISTINCT x AS y, t.z, '$.a.b' FROM t")).toEqual(['y', 'z', 'b']);
  });
});

describe('maskedUrl userinfo', () => {
  it('masks a token alone before @', () => {
    expect(maskedUrl('https://ghp_abcdef123456@api.example.com/x')).toBe('https://***@api.example.com/x');
  });
  it('masks everything before the last @ of the authority', () => {
    expect(maskedUrl('https://u:p@ss@host/x')).toBe('https://u:***@host/x');
    expect(maskedUrl('https://host/x?a=b@c')).toBe('https://host/x?a=b@c');
  });
});
