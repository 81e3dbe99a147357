import { describe, expect, test } from 'vitest';
import { jsonDeeperThan } from '../../src/http/json-depth.js';

const deeper = (text: string, max: number) => jsonDeeperThan(Buffer.from(text, 'utf8'), max);

describe('jsonDeeperThan scans the UTF-8 bytes', () => {
  test('counts nesting of arrays and objects, not brackets inside strings', () => {
    expect(deeper('[[[]]]', 3)).toBe(false);
    expect(deeper('[[[[]]]]', 3)).toBe(true);
    expect(deeper('{"a":{"b":[1]}}', 2)).toBe(true);
    expect(deeper('["[[[[", "{{{{"]', 1)).toBe(false);
  });

  test('escaped quotes and backslashes do not end a string early', () => {
    expect(deeper('["\\"[[[[", "\\\\"]', 1)).toBe(false);
    expect(deeper('["\\\\", [[[]]]]', 3)).toBe(true);
  });

  test('multi-byte characters (any byte of which is >= 0x80) are skipped like letters', () => {
    expect(deeper('["é日本😀[[", {"ключ": ["ü"]}]', 3)).toBe(false);
    expect(deeper('[{"ключ": [["ü"]]}]', 3)).toBe(true);
  });

  test('100,000 brackets cost a scan', () => {
    expect(deeper('['.repeat(100_000), 256)).toBe(true);
  });
});
