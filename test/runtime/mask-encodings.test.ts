import { describe, expect, it } from 'vitest';
import { maskBytes, maskJson, maskShownText, unescaped } from '../../src/runtime/mask.js';

const SECRET = 'tok-Zq81xW';

describe('masking what a service echoed, in the encodings a parser or a script would undo', () => {
  it('maskBytes overwrites each form in UTF-8 and UTF-16 (both orders) with stars of the same length', () => {
    const parts = [
      Buffer.from('%PDF-1.7 a='),
      Buffer.from(SECRET),
      Buffer.from(' b='),
      Buffer.from(SECRET, 'utf16le'),
      Buffer.from(' c='),
      Buffer.from(SECRET, 'utf16le').swap16(),
      Buffer.from(` d=${Buffer.from(SECRET).toString('base64')}`),
    ];
    const bytes = Buffer.concat(parts);
    const masked = maskBytes(bytes, [SECRET], ['utf8', 'utf16le', 'utf16be']);
    expect(masked.length).toBe(bytes.length);
    expect(masked.includes(Buffer.from(SECRET))).toBe(false);
    expect(masked.includes(Buffer.from(SECRET, 'utf16le'))).toBe(false);
    expect(masked.includes(Buffer.from(SECRET, 'utf16le').swap16())).toBe(false);
    expect(masked.toString('latin1')).not.toContain(Buffer.from(SECRET).toString('base64').slice(0, 12));
    expect(masked.toString('latin1').startsWith(`%PDF-1.7 a=${'*'.repeat(SECRET.length)} b=`)).toBe(true);
    // The original is not changed; nothing found, the same buffer back.
    expect(bytes.includes(Buffer.from(SECRET))).toBe(true);
    const clean = Buffer.from('nothing here');
    expect(maskBytes(clean, [SECRET], ['utf8'])).toBe(clean);
  });

  it('unescaped decodes decimal and hex character references and \\u escapes, nothing else', () => {
    expect(unescaped('&#116;o&#x6B;-\\u005a&amp;')).toBe('tok-Z&amp;');
    expect(unescaped('no escapes')).toBe('no escapes');
    expect(unescaped('&#99999999;')).toBe('&#99999999;');
  });

  it('a string whose escapes, mixed with plain characters, spell the secret is masked whole', () => {
    const mixed = [...SECRET].map((c, i) => (i % 3 ? c : `&#${c.charCodeAt(0)};`)).join('');
    const escaped = [...SECRET]
      .map((c, i) => (i % 2 ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
      .join('');
    expect(maskJson({ a: mixed, b: escaped, c: 'plain' }, [SECRET])).toEqual({
      a: '***',
      b: '***',
      c: 'plain',
    });
  });

  it('an excerpt that hides the secret in escapes is shown decoded and masked; others as they were', () => {
    const mixed = [...SECRET].map((c, i) => (i % 2 ? c : `&#x${c.charCodeAt(0).toString(16)};`)).join('');
    expect(maskShownText(`<k>${mixed}</k>`, [SECRET])).toBe('<k>***</k>');
    expect(maskShownText('<k>&#65;</k>', [SECRET])).toBe('<k>&#65;</k>');
    expect(maskShownText(`<k>${SECRET}</k>`, [SECRET])).toBe('<k>***</k>');
  });
});
