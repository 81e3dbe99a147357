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

describe('YamlFile repeated keys', () => {
  test('are found in every map, nested, in a repeated key’s value, in keys that are maps, in flow sequences', () => {
    const text = [
      'a: 1', // 1
      'params:', // 2
      '  x: { location: path }', // 3
      '  x: { location: query, location: body }', // 4: x repeated; location inside the repeat's value
      '? { k: 1, k: 2 }', // 5: inside a key that is a map
      ': v',
      'list: [{ q: 1, q: 2 }, { q: 3 }]', // 7
      '1: number key',
      "'1': text key, not the same", // 9: 1 and '1' read alike but are not the same key
      'a: again', // 10
    ].join('\n');
    const found = new YamlFile('r.yaml', text)
      .syntaxErrors()
      .map(({ message, at }) => `${message} ${at.line}:${at.col}`);
    expect(found).toEqual([
      'Map keys must be unique 4:3',
      'Map keys must be unique 4:25',
      'Map keys must be unique 5:11',
      'Map keys must be unique 7:16',
      'Map keys must be unique 10:1',
    ]);
  });

  test('leave the places of the first of repeated keys', () => {
    const file = new YamlFile('r.yaml', 'x: 1\ny:\n  z: 2\nx: 3\n');
    file.release();
    expect(file.locate(['x'])).toEqual({ file: 'r.yaml', line: 1, col: 4 });
    expect(file.locate(['y', 'z'])).toEqual({ file: 'r.yaml', line: 3, col: 6 });
  });
});
