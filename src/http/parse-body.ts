import type { XMLParser } from 'fast-xml-parser';
import { bodyText, isUtf8Encoding, textEncoding } from './charset.js';
import type { RequestSummary } from './errors.js';
import { ResponseFormatError, ResponseTooDeepError } from './errors.js';
import { jsonDeeperThan } from './json-depth.js';
import { fastXmlParser } from './xml-library.js';

export type Format = 'json' | 'text' | 'xml' | 'pdf';

/** `format: pdf` (any binary): the bytes as base64, never decoded as text. */
export interface BinaryBody {
  readonly data: string;
  readonly contentType: string;
  readonly size: number;
}

/**
 * fast-xml-parser, loaded at the first XML body (its one-file CommonJS build, synchronously): most
 * functions never read XML, and loading it was a tenth of `restfn run`'s start-up (issue 11).
 */
let xmlLibrary: typeof import('fast-xml-parser') | undefined;
const xml = () => (xmlLibrary ??= fastXmlParser());

const xmlParsers = new Map<number, XMLParser>();

/** The XML parser for a nesting limit (fast-xml-parser's own `maxNestedTags`, default 100, is raised to it). */
function xmlParser(maxDepth: number): XMLParser {
  let parser = xmlParsers.get(maxDepth);
  if (!parser) {
    // Attributes are kept with an `@_` prefix; values stay strings (no guessing of numbers).
    // Character references (`&#65;`, `&#x41;`) are decoded: a value is then the text the service
    // meant, which masking can recognise (an echoed credential written as references included).
    parser = new (xml().XMLParser)({
      ignoreAttributes: false,
      htmlEntities: true,
      attributeNamePrefix: '@_',
      parseTagValue: false,
      maxNestedTags: maxDepth,
    });
    xmlParsers.set(maxDepth, parser);
  }
  return parser;
}

/**
 * Parses a response body by the function's `format`. An empty body (or a 204/HEAD) is `null`. JSON
 * and XML nested deeper than `maxDepth` are refused: every later step (transforms, storing, printing)
 * walks the value recursively.
 */
export function parseBody(
  format: Format,
  bytes: Buffer,
  contentType: string | undefined,
  request: RequestSummary,
  maxDepth: number,
): unknown {
  if (format === 'pdf') {
    return {
      data: bytes.toString('base64'),
      contentType: contentType ?? 'application/octet-stream',
      size: bytes.length,
    };
  }
  if (bytes.length === 0) return format === 'text' ? '' : null;
  // In its character set: masking and transforms must read the text the service meant.
  const encoding = textEncoding(bytes, contentType, format === 'xml');
  const text = bodyText(bytes, contentType, request, format === 'xml', encoding);
  if (format === 'json') {
    // The depth scan reads UTF-8 bytes: a body in another charset is scanned as its text in UTF-8.
    const utf8 = isUtf8Encoding(encoding) ? bytes : Buffer.from(text, 'utf8');
    if (jsonDeeperThan(utf8, maxDepth)) throw new ResponseTooDeepError(request, 'JSON', maxDepth);
  }
  if (format === 'text') return text;
  if (format === 'json') {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ResponseFormatError(request, 'JSON', excerpt(text), jsonProblem(error));
    }
  }
  const valid = xml().XMLValidator.validate(text);
  if (valid !== true) throw new ResponseFormatError(request, 'XML', excerpt(text), valid.err.msg);
  try {
    return xmlParser(maxDepth).parse(text);
  } catch (error) {
    if (/nested tags/i.test((error as Error).message))
      throw new ResponseTooDeepError(request, 'XML', maxDepth);
    throw new ResponseFormatError(request, 'XML', excerpt(text), (error as Error).message);
  }
}

/**
 * V8's reason without its quote of the text (`Unexpected token 'o', "tok9..." is not valid JSON`):
 * the excerpt shows the start, masked by the caller; the quote would repeat it unmasked and raw.
 */
function jsonProblem(error: unknown): string {
  return ascii((error as Error).message.replace(/, ".*" is not valid JSON$/s, ''), 120);
}

function excerpt(text: string): string {
  return ascii(text, 80);
}

/** The start of a text as printable ASCII: anything else (control characters included) is `?`. */
function ascii(text: string, max: number): string {
  return text.slice(0, max).replace(/[^\x20-\x7e]/g, '?');
}
