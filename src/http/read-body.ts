import type { Readable } from 'node:stream';
import { type RequestSummary, ResponseTooLargeError } from './errors.js';

/**
 * Reads a response body up to `maxBytes`, chunk by chunk. A declared Content-Length over the limit
 * is refused before reading; otherwise reading stops (and the connection is closed) as soon as the
 * limit is passed, so an endless or huge body costs at most the limit in memory.
 */
export async function readCappedBody(
  body: Readable & { arrayBuffer?: () => Promise<ArrayBuffer> },
  contentLength: string | string[] | undefined,
  maxBytes: number,
  summary: RequestSummary,
): Promise<Buffer> {
  const declared = typeof contentLength === 'string' ? Number(contentLength) : Number.NaN;
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw new ResponseTooLargeError(summary, maxBytes, declared);
  }
  // A declared length within the cap bounds the body (the HTTP parser ends it there): read it in
  // one go, without a stream iterator.
  if (Number.isFinite(declared) && body.arrayBuffer) return Buffer.from(await body.arrayBuffer());
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new ResponseTooLargeError(summary, maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}
