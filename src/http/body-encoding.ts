import { RestfnError } from '../errors/restfn-error.js';
import { randomHex } from '../portable/random.js';
import { mediaTypeOf } from './media-type.js';

/**
 * A file in a request body: its bytes, and the name and type a multipart part gives it. A device's
 * `file://` value, a `file`/`image` parameter's base64 or data URI, and bytes become one before the
 * request is built (call.ts). In a JSON body it is base64 text, the usual JSON encoding of bytes.
 */
export class FileValue {
  constructor(
    readonly bytes: Buffer,
    readonly filename?: string,
    readonly contentType?: string,
  ) {}

  toJSON(): string {
    return this.bytes.toString('base64');
  }
}

/** A body the function's content type cannot carry (a file in a form, a list as a form). */
export class BodyEncodingError extends RestfnError {
  constructor(message: string) {
    super('BODY_ENCODING', message);
  }
}

/** How a body is written, from the function's `Content-Type` header (spec: JSON when none). */
export type BodyKind = 'json' | 'form' | 'multipart' | 'text' | 'binary';

export function bodyKind(contentType: string | undefined): BodyKind {
  const mime = contentType?.split(';')[0]?.trim().toLowerCase();
  if (!mime || mime === 'application/json' || mime.endsWith('+json')) return 'json';
  if (mime === 'application/x-www-form-urlencoded') return 'form';
  if (mime === 'multipart/form-data') return 'multipart';
  if (mime.startsWith('text/') || mime.endsWith('+xml') || mime === 'application/xml') return 'text';
  return 'binary';
}

type Leaf = string | FileValue;

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * A value as form fields, nested in the bracket form Stripe and Rails read: `a[b]=c` for an
 * object's keys, `a[]=x` for a list of plain values, `a[0][b]=c` for a list of objects or lists.
 * `null` is an empty value (what such services read as "unset"); `undefined` is left out.
 */
export function formFields(
  value: unknown,
  name = '',
  /** Top-level fields whose lists repeat the key (`a=x&a=y`, OpenAPI's form style) instead. */
  repeated: ReadonlySet<string> = NO_NAMES,
): Array<[string, Leaf]> {
  if (value === undefined) return [];
  if (value === null) return name ? [[name, '']] : [];
  if (value instanceof FileValue) return [[name, value]];
  if (value instanceof Uint8Array) return [[name, new FileValue(Buffer.from(value))]];
  if (Array.isArray(value)) {
    const nested = value.some((v) => v !== null && typeof v === 'object' && !(v instanceof FileValue));
    if (!nested && repeated.has(name)) return value.flatMap((item) => formFields(item, name));
    return value.flatMap((item, i) => formFields(item, nested ? `${name}[${i}]` : `${name}[]`));
  }
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) =>
      formFields(item, name ? `${name}[${key}]` : key, name ? NO_NAMES : repeated),
    );
  }
  if (!name) throw new BodyEncodingError('a form body is an object of fields, not a single value');
  return [[name, String(value)]];
}

/** `application/x-www-form-urlencoded` text of an object of fields. */
export function encodeForm(value: unknown, repeated: ReadonlySet<string> = NO_NAMES): string {
  const form = new URLSearchParams();
  for (const [name, leaf] of topLevel(value, 'form', repeated)) {
    if (leaf instanceof FileValue) {
      throw new BodyEncodingError(
        `body field '${name}' holds a file, which a form (application/x-www-form-urlencoded) cannot carry: send the function as multipart/form-data`,
      );
    }
    form.append(name, leaf);
  }
  return form.toString();
}

/**
 * `multipart/form-data` bytes of an object of fields: one text part per field (nested objects and
 * lists as in `formFields`), one file part per file, named and typed (the type from the bytes'
 * signature when the file does not say). The boundary is random, never found in a part.
 */
export function encodeMultipart(
  value: unknown,
  shown = false,
  repeated: ReadonlySet<string> = NO_NAMES,
  /** The boundary to use (a shown request's is the sent one's). */
  given?: string,
): { body: Buffer; contentType: string } {
  const fields = topLevel(value, 'multipart', repeated);
  let boundary = given ?? '';
  while (
    boundary === '' ||
    (given === undefined && fields.some(([, leaf]) => partBytes(leaf).includes(boundary)))
  )
    boundary = `----restfn${randomHex(12)}`;
  const chunks: Buffer[] = [];
  for (const [name, leaf] of fields) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"`;
    if (leaf instanceof FileValue) {
      const type = leaf.contentType ?? mediaTypeOf(leaf.bytes).mime;
      head += `; filename="${quoted(leaf.filename ?? name)}"\r\nContent-Type: ${type}`;
    }
    // Shown (a trace), a file is a placeholder: its bytes are no text to read.
    const bytes =
      shown && leaf instanceof FileValue ? Buffer.from(`<${leaf.bytes.length} bytes>`) : partBytes(leaf);
    chunks.push(Buffer.from(`${head}\r\n\r\n`), bytes, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function topLevel(
  value: unknown,
  kind: 'form' | 'multipart',
  repeated: ReadonlySet<string>,
): Array<[string, Leaf]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof FileValue) {
    throw new BodyEncodingError(
      `a ${kind === 'form' ? 'form (application/x-www-form-urlencoded)' : 'multipart/form-data'} body is an object of fields: give body parameters, or an inputTransform that returns an object`,
    );
  }
  return formFields(value, '', repeated);
}

function partBytes(leaf: Leaf): Buffer {
  return leaf instanceof FileValue ? leaf.bytes : Buffer.from(leaf);
}

/** A name in a Content-Disposition header: quotes and line breaks escaped as browsers do. */
function quoted(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
