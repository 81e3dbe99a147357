import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { RequestSummary } from './errors.js';
import { ResponseFormatError } from './errors.js';

export type Format = 'json' | 'text' | 'xml' | 'pdf';

/** `format: pdf` (any binary): the bytes as base64, never decoded as text. */
export interface BinaryBody {
  readonly data: string;
  readonly contentType: string;
  readonly size: number;
}

// Attributes are kept with an `@_` prefix; values stay strings (no guessing of numbers).
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });

/** Parses a response body by the function's `format`. An empty body (or a 204/HEAD) is `null`. */
export function parseBody(
  format: Format,
  bytes: Buffer,
  contentType: string | undefined,
  request: RequestSummary,
): unknown {
  if (format === 'pdf') {
    return {
      data: bytes.toString('base64'),
      contentType: contentType ?? 'application/octet-stream',
      size: bytes.length,
    };
  }
  if (bytes.length === 0) return format === 'text' ? '' : null;
  const text = bytes.toString('utf8');
  if (format === 'text') return text;
  if (format === 'json') {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ResponseFormatError(request, 'JSON', excerpt(text), (error as Error).message);
    }
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new ResponseFormatError(request, 'XML', excerpt(text), valid.err.msg);
  return xml.parse(text);
}

function excerpt(text: string): string {
  return text.slice(0, 80).replace(/[^\x20-\x7e]/g, '?');
}
