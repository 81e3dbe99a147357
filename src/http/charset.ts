import { type RequestSummary, ResponseEncodingError } from './errors.js';

/** `charset=` of a Content-Type, lower-cased, quotes taken off. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

/** Labels that are UTF-8 (WHATWG's list): read by Buffer's own decoder, the fast path. */
const UTF8 = new Set([
  'utf-8',
  'utf8',
  'unicode-1-1-utf-8',
  'unicode11utf8',
  'unicode20utf8',
  'x-unicode20utf8',
]);

const decoders = new Map<string, InstanceType<typeof TextDecoder>>();

/** The decoder for a WHATWG encoding label, or undefined when there is no such encoding. */
function decoderFor(label: string): InstanceType<typeof TextDecoder> | undefined {
  let decoder = decoders.get(label);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(label);
    } catch {
      return undefined;
    }
    decoders.set(label, decoder);
  }
  return decoder;
}

/**
 * The encoding of a body that names none in its Content-Type: a byte order mark says, else an
 * XML declaration's `encoding` (for XML), else UTF-8 (JSON's only encoding, RFC 8259).
 */
function sniffed(bytes: Buffer, xml: boolean): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (xml) {
    const declared = /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(
      bytes.subarray(0, 200).toString('latin1'),
    );
    if (declared) return declared[1]!.toLowerCase();
  }
  return 'utf-8';
}

/** The encoding a body's text is in: the Content-Type's `charset`, else what the bytes say (`sniffed`). */
export function textEncoding(bytes: Buffer, contentType: string | undefined, xml = false): string {
  return charsetOf(contentType) ?? sniffed(bytes, xml);
}

export const isUtf8Encoding = (label: string): boolean => UTF8.has(label);

/**
 * A response body as text, in the character set it says it is in (`textEncoding`), with a leading
 * byte order mark taken off. Everything that reads a body's text (the format's parser, masking,
 * excerpts) reads it this way: a credential echoed in UTF-16 is then the same text as in UTF-8, and
 * masked alike. A charset that is no encoding is RESPONSE_ENCODING.
 */
export function bodyText(
  bytes: Buffer,
  contentType: string | undefined,
  request: RequestSummary,
  xml = false,
  encoding = textEncoding(bytes, contentType, xml),
): string {
  const text = UTF8.has(encoding) ? bytes.toString('utf8') : decoderFor(encoding)?.decode(bytes);
  if (text === undefined) {
    throw new ResponseEncodingError(
      request,
      `the response says its text is in character set '${encoding.slice(0, 40)}', which is not one restfn knows`,
    );
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
