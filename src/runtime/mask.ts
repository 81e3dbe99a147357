import { FileValue } from '../http/body-encoding.js';
import { isSensitiveHeader, MASK } from '../http/sensitive.js';

export { MASK };

/**
 * Values shorter than this are not searched for in free text (a URL, a JSON text, an error
 * message): hiding every `7` or `a` would make the text unreadable and still leave the value
 * guessable. Short values are hidden where they are bound instead, as the whole header, query
 * value, path segment or body field (see `shownRequest`), and as whole JSON values (`maskJson`).
 */
const MIN_SEARCHED = 3;

/**
 * The texts to hide for one credential value as it was placed: the value itself, the value without
 * its `Bearer`/`Basic` scheme, and for basic auth the decoded `user:password` and the password, so
 * that a service echoing any of them back is masked too.
 */
export function credentialTexts(placed: string): string[] {
  const texts = [placed];
  const scheme = /^(Bearer|Basic)\s+(.*)$/is.exec(placed);
  if (scheme) {
    texts.push(scheme[2]!);
    if (scheme[1]!.toLowerCase() === 'basic') {
      const decoded = Buffer.from(scheme[2]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon !== -1) texts.push(decoded, decoded.slice(colon + 1));
    }
  }
  return [...new Set(texts.filter((t) => t.length > 0))];
}

/**
 * Every form `value` can take in output: as it is; JSON-escaped (a value with `"`, `\` or control
 * characters inside a JSON text), also twice (JSON quoted inside a JSON string), with `/` as `\/`,
 * and with non-ASCII written as `\uXXXX` as many servers do; HTML-escaped; percent-encoded
 * (`encodeURIComponent`, `encodeURI` as `$encodeUrl` does) and form-encoded (`+` for space), each of
 * the raw and the JSON-escaped form (a JSON value in a query string); and base64, standard and
 * URL-safe.
 */
export function encodedForms(value: string): string[] {
  const json = jsonEscaped(value);
  // JSON inside a JSON string (a body echoed in a field), and `/` escaped as `\/` (PHP's default).
  const jsons = [json, jsonEscaped(json), json.replaceAll('/', '\\/')];
  const forms = [
    value,
    ...jsons.flatMap((j) => [j, asciiJson(j, false), asciiJson(j, true)]),
    htmlEscaped(value),
    // Every character as a reference, as XML serialisers write what their output encoding lacks.
    characterReferences(value, 10),
    characterReferences(value, 16),
    // Every character escaped, as some JSON writers do.
    unicodeEscaped(value),
  ];
  for (const text of [value, json]) {
    const percent: string[] = [new URLSearchParams({ s: text }).toString().slice(2)];
    // encodeURI(Component) refuses a lone surrogate; such a value cannot be percent-encoded that way.
    try {
      // encodeURI is JSONata's $encodeUrl: it keeps `/?&=+#` as they are.
      percent.push(encodeURIComponent(text), encodeURI(text));
    } catch {}
    // Written with lower-case hex digits too, as some encoders do.
    forms.push(...percent, ...percent.map((f) => f.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())));
  }
  const utf8 = Buffer.from(value, 'utf8');
  // Every byte percent-encoded, and the bytes in hex, each in both cases.
  const everyByte = [...utf8].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  forms.push(everyByte, everyByte.toUpperCase(), quotedPrintable(utf8));
  // Of the UTF-8 bytes, and of the UTF-16 ones (a Windows service's): hex, base64, base32; and
  // base64 once more of the base64 (a credential inside a base64 document, as Kubernetes writes).
  for (const encoding of ['utf8', 'utf16le', 'utf16be'] as const) {
    const bytes = encoded(value, encoding);
    const hex = bytes.toString('hex');
    const base64 = base64Forms(bytes);
    forms.push(hex, hex.toUpperCase(), ...base64, ...base32Forms(bytes));
    for (const inner of base64) forms.push(...base64Forms(Buffer.from(inner, 'latin1')));
  }
  return [...new Set(forms.filter((f) => f.length > 0))];
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** As an HTML page shows it (an error page quoting what it was sent, the platform's own pages). */
export function htmlEscaped(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Quoted-printable (RFC 2045), as mail APIs write text: `=`, controls and non-ASCII as `=XX`. */
function quotedPrintable(bytes: Buffer): string {
  let out = '';
  for (const b of bytes)
    out +=
      b === 0x3d || b < 0x20 || b > 0x7e
        ? `=${b.toString(16).toUpperCase().padStart(2, '0')}`
        : String.fromCharCode(b);
  return out;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * The base32 (RFC 4648) characters that depend on `bytes` alone, for each of the five byte offsets
 * it may start at (base32 maps 5 bytes to 8 characters), as `base64Forms` does for base64.
 */
function base32Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (let offset = 0; offset < 5; offset++) {
    const all = Buffer.concat([Buffer.alloc(offset), bytes]);
    let bits = 0;
    let value = 0;
    let text = '';
    for (const b of all) {
      value = ((value << 8) | b) & 0xffff;
      bits += 8;
      while (bits >= 5) {
        text += BASE32[(value >>> (bits - 5)) & 31];
        bits -= 5;
      }
    }
    const start = Math.ceil((offset * 8) / 5);
    const end = Math.floor(((offset + bytes.length) * 8) / 5);
    forms.push(text.slice(start, end));
  }
  return forms;
}

function characterReferences(text: string, radix: 10 | 16): string {
  let out = '';
  for (const c of text) out += `&#${radix === 16 ? 'x' : ''}${c.codePointAt(0)!.toString(radix)};`;
  return out;
}

function unicodeEscaped(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

function asciiJson(json: string, upper: boolean): string {
  return json.replace(/[\u007f-\uffff]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

/**
 * The base64 characters that depend on `value` alone, for each of the three byte offsets it may
 * start at inside a longer text (`user:password` in basic auth): base64 maps 3 bytes to 4
 * characters, so the encoding of a value in the middle of a text shifts with its offset modulo 3.
 * The one or two characters shared with neighbouring bytes are left, as they cannot be told apart.
 */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const core = encoded.slice(start, end);
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** The forms of a secrets list at one minimum length, and one pattern that finds any of them. */
interface Searched {
  /** Every form, longest first so that a shorter form never cuts a longer one in two. */
  readonly forms: readonly string[];
  /** Any form of the values, for the common case: a text that holds none, answered in one scan. */
  readonly any: RegExp | undefined;
  /** The attempt's references, searched as they are (see `searchedForms`). */
  readonly refs: readonly string[];
}

/** Whether a text holds any form of the list (the `any` pattern, or a reference). */
function holdsAny(text: string, searched: Searched): boolean {
  return searched.any?.test(text) === true || searched.refs.some((ref) => text.includes(ref));
}

/**
 * Forms by secrets list: one attempt masks its URL, body and every header with the same list
 * (never changed once built).
 */
const formsCache = new WeakMap<readonly string[], Map<number, Searched>>();

/**
 * The values' forms and pattern by their text: every attempt makes a new list (its references are
 * new), but the values are the same execution after execution, and their forms (several dozen
 * each) and one pattern of them all cost far more than a call to compute.
 */
const byValues = new Map<string, { forms: readonly string[]; any: RegExp | undefined }>();
const BY_VALUES_KEPT = 256;

/**
 * A reference (`rfn-secret-` + 28 hex digits, secret-refs.ts) stands for a value and is no secret:
 * it is masked so that what is shown reads `***`, as it is written (encoding it changes nothing
 * but base64 and hex, and a reshaped reference is meaningless anyway).
 */
const isReference = (text: string) => text.length === 39 && text.startsWith('rfn-secret-');

function searchedForms(secrets: readonly string[], minLength: number): Searched {
  let byLength = formsCache.get(secrets);
  if (!byLength) {
    byLength = new Map();
    formsCache.set(secrets, byLength);
  }
  let searched = byLength.get(minLength);
  if (!searched) {
    const values = secrets.filter((s) => !isReference(s) && s.length >= minLength);
    const refs = secrets.filter((s) => isReference(s) && s.length >= minLength);
    const key = `${minLength}\0${values.join('\0')}`;
    let ofValues = byValues.get(key);
    if (!ofValues) {
      const forms = computeForms(values, minLength);
      ofValues = { forms, any: forms.length > 0 ? new RegExp(forms.map(escapeRegExp).join('|')) : undefined };
      if (byValues.size >= BY_VALUES_KEPT) byValues.clear();
      byValues.set(key, ofValues);
    }
    const forms =
      refs.length === 0 ? ofValues.forms : [...ofValues.forms, ...refs].sort((a, b) => b.length - a.length);
    searched = { forms, any: ofValues.any, refs };
    byLength.set(minLength, searched);
  }
  return searched;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function computeForms(secrets: readonly string[], minLength: number): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < minLength) continue;
    for (const form of encodedForms(secret)) if (form.length >= minLength) forms.add(form);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** A text with every form of every credential value (of at least 3 characters) replaced by `***`. */
export function maskText(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return text;
  const searched = searchedForms(secrets, MIN_SEARCHED);
  if (!holdsAny(text, searched)) return text;
  const { forms } = searched;
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(MASK);
  return out;
}

/**
 * A JSON value as it may be shown: every string, number or boolean that holds a credential value in
 * any form, however short, becomes `***` as a whole (a transform may put a credential anywhere in
 * the body, so the field that carries it is found by content). Object keys are searched like free
 * text. Bytes are kept as they are (a body of bytes is shown by its size only).
 */
export function maskJson(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  const searched = searchedForms(secrets, 1);
  if (searched.forms.length === 0) return value;
  // Also in what the text stands for: a value written as character references, `\u` escapes or
  // percent-encoded bytes mixed with plain characters, or base64 wrapped in lines, is one a script
  // could decode.
  const holds = (text: string) =>
    holdsAny(text, searched) || decodedViews(text).some((view) => holdsAny(view, searched));
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return holds(v) ? MASK : v;
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
      return holds(String(v)) ? MASK : v;
    if (v === null || typeof v !== 'object' || v instanceof Uint8Array || v instanceof FileValue) return v;
    if (Array.isArray(v)) return v.map(walk);
    // As JSON.stringify sees it: a Date (or anything with toJSON) by its JSON form.
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return walk(toJSON.call(v));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [maskText(k, secrets), walk(x)]));
  };
  return walk(value);
}

/** How a text's characters become bytes, for `maskBytes`. */
export type ByteEncoding = 'utf8' | 'utf16le' | 'utf16be' | 'utf32le' | 'utf32be';

/** Every encoding `maskBytes` knows. */
export const BYTE_ENCODINGS: readonly ByteEncoding[] = ['utf8', 'utf16le', 'utf16be', 'utf32le', 'utf32be'];

/** Bytes of one character unit: 1 in UTF-8 (where `*` is one byte), 2 or 4 in the others. */
const UNIT: Readonly<Record<ByteEncoding, number>> = {
  utf8: 1,
  utf16le: 2,
  utf16be: 2,
  utf32le: 4,
  utf32be: 4,
};

function encoded(text: string, encoding: ByteEncoding): Buffer {
  if (encoding === 'utf8' || encoding === 'utf16le') return Buffer.from(text, encoding);
  if (encoding === 'utf16be') return Buffer.from(text, 'utf16le').swap16();
  const points = [...text].map((c) => c.codePointAt(0)!);
  const out = Buffer.alloc(points.length * 4);
  points.forEach((p, i) => {
    if (encoding === 'utf32le') out.writeUInt32LE(p, i * 4);
    else out.writeUInt32BE(p, i * 4);
  });
  return out;
}

/**
 * Bytes with every form of every credential value (of at least 3 characters), in each of
 * `encodings`, overwritten with `*` in that encoding: the same length, so a binary format's offsets
 * (a PDF's cross-reference table) still hold. For bodies no parser reads as text (`format: pdf`),
 * and for UTF-16 text a service sent without saying so. A copy when anything is found.
 */
export function maskBytes(
  bytes: Buffer,
  secrets: readonly string[],
  encodings: readonly ByteEncoding[],
): Buffer {
  if (secrets.length === 0 || bytes.length === 0) return bytes;
  // A form of Latin-1 characters (most are) has a zero byte in each UTF-16 or UTF-32 unit: bytes
  // without any zero (every UTF-8 text) cannot hold it so, and one scan for a zero says so.
  let zero: boolean | undefined;
  const hasZero = () => {
    zero ??= bytes.includes(0);
    return zero;
  };
  let out = bytes;
  for (const form of searchedForms(secrets, MIN_SEARCHED).forms) {
    const latin1 = isLatin1(form);
    for (const encoding of encodings) {
      if (encoding !== 'utf8' && latin1 && !hasZero()) continue;
      const needle = encoded(form, encoding);
      let at = out.indexOf(needle);
      if (at === -1) continue;
      if (out === bytes) out = Buffer.from(bytes);
      const stars = encoded('*'.repeat(needle.length / UNIT[encoding]), encoding);
      for (; at !== -1; at = out.indexOf(needle, at + needle.length)) stars.copy(out, at);
    }
  }
  return out;
}

function isLatin1(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return false;
  return true;
}

/** HTML5's names for ASCII punctuation (PHP's `htmlentities` with ENT_HTML5 writes them). */
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  excl: '!',
  quot: '"',
  QUOT: '"',
  num: '#',
  dollar: '$',
  percnt: '%',
  amp: '&',
  AMP: '&',
  apos: "'",
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  lt: '<',
  LT: '<',
  equals: '=',
  gt: '>',
  GT: '>',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  bsol: '\\',
  rsqb: ']',
  rbrack: ']',
  Hat: '^',
  lowbar: '_',
  UnderBar: '_',
  grave: '`',
  DiacriticalGrave: '`',
  lcub: '{',
  lbrace: '{',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  rcub: '}',
  rbrace: '}',
  tilde: '~',
  DiacriticalTilde: '~',
  hyphen: '-',
  dash: '-',
  NewLine: '\n',
  Tab: '\t',
  nbsp: ' ',
};
const NAMED = /&([A-Za-z]+);/g;

const ESCAPE = /&#(?:x([0-9a-f]{1,6})|([0-9]{1,7}));|\\u([0-9a-f]{4})/gi;
const PERCENT = /%[0-9a-f]{2}/i;
const HEX_SEPARATED = /[0-9a-f]{2}(?:[:\- ][0-9a-f]{2}){2}/i;
const BREAKS = /[\r\n]/;

/**
 * What a text may stand for once a script undid an encoding a service applied to only part of it
 * (or wrapped): its escapes decoded (`unescaped`), its percent-encoded bytes decoded, its line
 * breaks and the spaces around them taken out (MIME-wrapped base64). Only the views that differ.
 */
export function decodedViews(text: string): string[] {
  const views: string[] = [];
  const plain = unescaped(text);
  if (plain !== text) views.push(plain);
  if (PERCENT.test(text)) views.push(percentDecoded(text));
  if (BREAKS.test(text)) views.push(text.replace(/\s+/g, ''));
  // Hex bytes with separators (`53:6b:2b`, `53-6B`, `53 6b`).
  if (HEX_SEPARATED.test(text)) views.push(text.replace(/([0-9a-fA-F]{2})[:\- ](?=[0-9a-fA-F]{2})/g, '$1'));
  return views;
}

/** Every run of `%XX` as the UTF-8 text of its bytes (a `%` that starts no pair kept). */
function percentDecoded(text: string): string {
  return text.replace(PERCENT_RUN, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}

const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;

/**
 * A text with its character references (`&#65;`, `&#x41;`) and JSON `\u0041` escapes decoded: the
 * text a parser would read. An excerpt is masked in this form when it hides a credential there.
 */
export function unescaped(text: string): string {
  if (!text.includes('&') && !text.includes('\\u')) return text;
  return text
    .replace(NAMED, (whole, name: string) => NAMED_ENTITIES[name] ?? whole)
    .replace(ESCAPE, (whole, hex: string | undefined, dec: string | undefined, u: string | undefined) => {
      const code = Number.parseInt(hex ?? dec ?? u!, hex !== undefined || u !== undefined ? 16 : 10);
      if (u !== undefined) return String.fromCharCode(code);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
}

/**
 * A text as it may be shown: masked as it is, or, when what it stands for hides a credential value
 * (a service that wrote it as character references or percent-encoded bytes mixed with plain
 * characters, or wrapped its base64), masked in that decoded form.
 */
export function maskShownText(text: string, secrets: readonly string[]): string {
  const masked = maskText(text, secrets);
  if (secrets.length === 0) return masked;
  for (const view of decodedViews(masked)) {
    const viewMasked = maskText(view, secrets);
    if (viewMasked !== view) return viewMasked;
  }
  return masked;
}

/**
 * Headers as they may be shown: sensitive ones (by the same rule the transport applies to
 * redirects) as `***`; in the others, any credential value a service echoed back.
 */
export function maskHeaders(
  headers: Readonly<Record<string, string>>,
  credentialHeaders: ReadonlySet<string>,
  secrets: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] =
      isSensitiveHeader(name, credentialHeaders) || secrets.includes(value) ? MASK : maskText(value, secrets);
  }
  return out;
}

/**
 * The error with credential values masked in its own text properties (message, stack, `detail`,
 * JSONata's `value`) and in those of its causes: an expression that read a credential may quote it
 * in its error (JSONata puts the value it could not cast into the message).
 */
export function maskError<T>(error: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return error;
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    for (const key of Object.getOwnPropertyNames(current)) {
      const value = (current as Record<string, unknown>)[key];
      if (typeof value !== 'string') continue;
      try {
        (current as Record<string, unknown>)[key] = maskText(value, secrets);
      } catch {
        // A read-only property keeps its text; the message, the one that is shown, is writable.
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return error;
}
