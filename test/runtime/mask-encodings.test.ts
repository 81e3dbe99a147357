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

  it('unescaped decodes character references (numeric, and HTML5 names of ASCII punctuation) and \\u escapes', () => {
    expect(unescaped('&#116;o&#x6B;-\\u005a&amp;')).toBe('tok-Z&');
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

describe('the forms a review found', () => {
  const KEY = 'Sk+9/qW=zX7mLp2R';
  const b64 = Buffer.from(`user:${KEY}`).toString('base64');
  it.each([
    [
      'percent-encoded, lower-case hex',
      `k=${encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())}`,
    ],
    ['every byte percent-encoded', [...Buffer.from(KEY)].map((b) => `%${b.toString(16)}`).join('')],
    ['partly percent-encoded', `%53k%2B9/qW=zX7mLp2R`],
    ['hex', Buffer.from(KEY).toString('hex').toUpperCase()],
    ['base64 wrapped in lines', `${b64.slice(0, 10)}\r\n ${b64.slice(10)}`],
    ['base64 of UTF-16LE', Buffer.from(KEY, 'utf16le').toString('base64')],
    ['base64 of UTF-16BE', Buffer.from(KEY, 'utf16le').swap16().toString('base64')],
    // A second review's forms.
    ['quoted-printable', 'k=Sk+9/qW=3DzX7mLp2R'],
    ['hex of UTF-16LE', Buffer.from(KEY, 'utf16le').toString('hex')],
    ['hex with separators', [...Buffer.from(KEY)].map((b) => b.toString(16)).join(':')],
    ['base32', 'KNVSWOJPOFLT26SYG5WUY4BSKI'],
    ['base64 of base64', Buffer.from(Buffer.from(KEY).toString('base64')).toString('base64')],
    [
      'base64 of a document holding basic auth',
      Buffer.from(JSON.stringify({ auth: Buffer.from(`u:${KEY}`).toString('base64') })).toString('base64'),
    ],
    ['HTML5 named entities', 'Sk&plus;9&sol;qW&equals;zX7mLp2R'],
  ])('%s', (_name, text) => {
    expect(maskJson({ v: text }, [KEY])).toEqual({ v: '***' });
    expect(maskShownText(`got ${text}.`, [KEY])).toContain('***');
  });

  it('maskBytes finds UTF-32 in both byte orders', () => {
    const utf32 = Buffer.alloc(KEY.length * 4);
    for (const [i, c] of [...KEY].entries()) utf32.writeUInt32BE(c.charCodeAt(0), i * 4);
    const masked = maskBytes(Buffer.concat([Buffer.from([0, 0, 0, 0x20]), utf32]), [KEY], ['utf32be']);
    expect(masked.includes(utf32)).toBe(false);
    expect(masked.length).toBe(utf32.length + 4);
  });
});
