import { promisify } from 'node:util';
import type { ZlibOptions } from 'node:zlib';
import { type RequestSummary, ResponseEncodingError, ResponseTooLargeError } from './errors.js';

/**
 * What every request asks for (`Accept-Encoding`), whatever a function says: the codings restfn
 * decodes itself. Nothing downstream (the format's parser, masking, a transform, a trace) ever
 * reads a body in a coding: a gzip that held an echoed credential would pass every mask as bytes.
 */
export const ACCEPTED_CODINGS = 'gzip, deflate, br';

type Decoder = (bytes: Buffer, options: ZlibOptions) => Promise<Buffer>;

/**
 * The decoders, made at the first response in a coding: `node:zlib` (and what it loads) is not
 * loaded by a command whose answers come uncompressed (issue 41, start-up).
 */
let decodersMade: Readonly<Record<Coding, Decoder>> | undefined;
const decoders = (): Readonly<Record<Coding, Decoder>> => (decodersMade ??= makeDecoders());

function makeDecoders(): Readonly<Record<Coding, Decoder>> {
  const { brotliDecompress, gunzip, inflate, inflateRaw } = process.getBuiltinModule('node:zlib');
  const gunzipAsync = promisify(gunzip) as Decoder;
  const inflateAsync = promisify(inflate) as Decoder;
  const inflateRawAsync = promisify(inflateRaw) as Decoder;
  const brotliAsync = promisify(brotliDecompress) as unknown as Decoder;
  /**
   * `deflate` is the zlib format (RFC 9110 8.4.1.2), but some servers send raw deflate data under
   * that name; browsers accept both, and so does restfn.
   */
  const inflateEither: Decoder = (bytes, options) =>
    inflateAsync(bytes, options).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw error;
      return inflateRawAsync(bytes, options);
    });
  return { gzip: gunzipAsync, 'x-gzip': gunzipAsync, deflate: inflateEither, br: brotliAsync };
}

/** The codings restfn decodes: its decoders are typed by them, so the two cannot part. */
const CODINGS = ['gzip', 'x-gzip', 'deflate', 'br'] as const;
type Coding = (typeof CODINGS)[number];
const DECODED: ReadonlySet<string> = new Set(CODINGS);

/**
 * The codings of a `Content-Encoding` value, in the order the sender applied them (`identity` and
 * empty items left out), or the first one restfn does not decode.
 */
export function contentCodings(header: string | undefined): { codings: string[]; unknown?: string } {
  if (header === undefined) return { codings: [] };
  const codings: string[] = [];
  for (const item of header.split(',')) {
    const coding = item.trim().toLowerCase();
    if (coding === '' || coding === 'identity') continue;
    if (!DECODED.has(coding)) return { codings, unknown: coding };
    codings.push(coding);
  }
  return { codings };
}

/**
 * The body with every content coding undone, last applied first, each step held to `maxBytes`
 * (a small gzip that inflates to gigabytes stops at the limit). Decoding runs on libuv's thread
 * pool, not the thread that runs the execution. A coding restfn does not decode, or data that is not
 * what its coding says, is RESPONSE_ENCODING: the body is never passed on in a coding.
 */
export async function decodeContent(
  bytes: Buffer,
  header: string | undefined,
  maxBytes: number,
  request: RequestSummary,
): Promise<Buffer> {
  const { codings, unknown } = contentCodings(header);
  if (unknown !== undefined) {
    throw new ResponseEncodingError(
      request,
      `the response is in content coding '${unknown.slice(0, 40)}', which restfn does not decode (it decodes ${ACCEPTED_CODINGS}, and asks for nothing else)`,
    );
  }
  // An empty body (HEAD, 204, 304) has nothing to decode, whatever the header says.
  if (bytes.length === 0) return bytes;
  let body = bytes;
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i]!;
    try {
      body = await decoders()[coding as Coding](body, { maxOutputLength: maxBytes });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        throw new ResponseTooLargeError(request, maxBytes);
      throw new ResponseEncodingError(
        request,
        `the response says Content-Encoding ${coding}, but its body is not valid ${coding} data`,
        error,
      );
    }
  }
  return body;
}
