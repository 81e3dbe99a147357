import { describe, expect, test } from 'vitest';
import { YamlFile } from '../../src/definition/yaml-file.js';

// Loading lets each file's node tree go once its data is taken (issue 11: keeping all of them was a
// quarter of validating 1,000 files); findings made later parse the text again.
describe('YamlFile after release', () => {
  const text =
    'method: GET\nurl: https://api.example.com/items\noutputTransform: |\n  items.(\n    id\n  )\n';

  test('positions are the same as before, for keys, values and characters inside block scalars', () => {
    const file = new YamlFile('f.platform', text);
    const before = [
      file.locate(['url']),
      file.locate(['url'], { key: true }),
      file.locate(['missing', 'deeper']),
      file.locateInValue(['outputTransform'], 10),
    ];
    const data = file.toJS();
    file.release();
    expect(file.toJS()).toBe(data);
    expect([
      file.locate(['url']),
      file.locate(['url'], { key: true }),
      file.locate(['missing', 'deeper']),
      file.locateInValue(['outputTransform'], 10),
    ]).toEqual(before);
    expect(before[3]).toEqual({ file: 'f.platform', line: 5, col: 5 });
  });
});
