import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex as browserSha256 } from '../../src/portable/digest.browser.js';
import { sha256Hex } from '../../src/portable/digest.js';
import { randomHex, randomUUID } from '../../src/portable/random.js';

describe('portable digest and random values', () => {
  it("the browser build's SHA-256 gives Node's answers (FIPS 180-4 vectors, block edges, any text)", () => {
    expect(browserSha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(browserSha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // 55, 56 and 64 bytes: the length field fits in the block, spills into a second, fills it exactly.
    for (const size of [55, 56, 63, 64, 65, 119, 120, 1000]) {
      const text = 'a'.repeat(size);
      expect(browserSha256(text)).toBe(sha256Hex(text));
    }
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => browserSha256(text) === sha256Hex(text)));
    const bytes = new Uint8Array([0, 255, 128, 7]);
    expect(browserSha256(bytes)).toBe(sha256Hex(bytes));
  });

  it('random ids and nonces have their shapes and differ', () => {
    expect(randomUUID()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(randomHex(12)).toMatch(/^[0-9a-f]{24}$/);
    expect(randomHex(12)).not.toBe(randomHex(12));
  });
});
