import type { ParameterDefinition } from '../definition/schema/index.js';
import { RestfnError } from '../errors/restfn-error.js';
import { bodyKind, FileValue } from '../http/body-encoding.js';
import type { PlacedValue } from '../http/build-request.js';
import { mediaTypeOf } from '../http/media-type.js';
import { isSerialisedBuffer } from '../local/conversions.js';
import type { FileStore } from '../local/files.js';

/** A parameter of these types holds a file (bytes, base64, a data URI or a device's `file://` URI). */
const FILE_TYPES = new Set(['file', 'image']);

/**
 * Files of a body that is not JSON (a form, multipart form data, a binary type): each body value
 * that is a device's `file://` URI is read from the file store, and each value of a `file` or
 * `image` parameter (base64, bytes) and every data URI becomes a `FileValue` with its name and type, so the
 * body is built with the bytes. A JSON body is left as it is (its files go as the author's
 * `conversions` say). Without a file store (the platform) a `file://` value is refused: the device
 * sends the bytes. Returns new values; the caller's stay as they were.
 */
export function bodyFiles(
  placed: PlacedValue[],
  transformed: { value: unknown } | undefined,
  definitions: Readonly<Record<string, ParameterDefinition>> | undefined,
  files: FileStore | undefined,
): { placed: PlacedValue[]; transformed: { value: unknown } | undefined } {
  const contentType = placed.find((p) => p.location === 'header' && p.name.toLowerCase() === 'content-type');
  if (bodyKind(typeof contentType?.value === 'string' ? contentType.value : undefined) === 'json')
    return { placed, transformed };
  const asFile = (value: unknown, name: string, typed: boolean) => fileOf(value, name, typed, files);
  if (transformed) {
    const value = transformed.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array)
      return { placed, transformed: { value: asFile(value, 'body', false) } };
    const fields = Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        Array.isArray(v) ? v.map((x) => asFile(x, k, false)) : asFile(v, k, false),
      ]),
    );
    return { placed, transformed: { value: fields } };
  }
  return {
    placed: placed.map((p) => {
      if (p.location !== 'body') return p;
      const typed = FILE_TYPES.has(definitions?.[p.name]?.type ?? '');
      const value = Array.isArray(p.value)
        ? p.value.map((x) => asFile(x, p.name, typed))
        : asFile(p.value, p.name, typed);
      return value === p.value ? p : { ...p, value };
    }),
    transformed,
  };
}

function fileOf(value: unknown, name: string, typed: boolean, files: FileStore | undefined): unknown {
  if (typeof value === 'string' && value.startsWith('file://')) {
    if (!files) {
      throw new RestfnError(
        'FILE_VALUE',
        `body field '${name}' is a device's file (file://...), which this runtime cannot read: the device sends the file's bytes (base64 or a data URI) instead`,
      );
    }
    return new FileValue(files.read(value), fileNameOf(value));
  }
  // A data URI is a file in any field: what a device sends for its file:// values (`remoteValue`).
  const dataUri = typeof value === 'string' ? DATA_URI.exec(value) : null;
  if (dataUri) {
    const filename = /;name=([^;,]*)/.exec(dataUri[2] ?? '')?.[1];
    return new FileValue(
      Buffer.from(dataUri[3]!, 'base64'),
      filename ? decodeURIComponent(filename) : name,
      dataUri[1] || undefined,
    );
  }
  if (!typed) return value;
  if (value instanceof Uint8Array) return new FileValue(Buffer.from(value), name);
  if (isSerialisedBuffer(value)) return new FileValue(Buffer.from(value.data), name);
  if (typeof value !== 'string') return value;
  const compact = value.replace(/\s/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) {
    throw new RestfnError(
      'FILE_VALUE',
      `parameter '${name}' is a file: give its bytes as base64, a data URI (data:<type>;base64,...) or, on a device, a file:// URI from its file store`,
    );
  }
  return new FileValue(Buffer.from(compact, 'base64'), name);
}

/** `data:<type>[;name=<file name>][;...];base64,<bytes>` */
const DATA_URI = /^data:([^;,]*)((?:;[^;,]*)*?);base64,(.*)$/s;

/**
 * A body value as a device sends it to the platform's call step (`--server`): a `file://` URI of
 * its file store, or bytes, as a data URI naming the file, which the platform turns back into the
 * file (the platform reads no device's files). Other values as they are.
 */
export function remoteValue(value: unknown, files: FileStore | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => remoteValue(v, files));
  let bytes: Buffer | undefined;
  let filename: string | undefined;
  if (typeof value === 'string' && value.startsWith('file://') && files) {
    bytes = files.read(value);
    filename = fileNameOf(value);
  } else if (value instanceof Uint8Array) bytes = Buffer.from(value);
  if (!bytes) return value;
  const name = filename ? `;name=${encodeURIComponent(filename)}` : '';
  return `data:${mediaTypeOf(bytes).mime}${name};base64,${bytes.toString('base64')}`;
}

/** The last segment of a `file:` URL's path, decoded: the file's name (what Node's basename(fileURLToPath()) gives). */
function fileNameOf(url: string): string {
  const path = new URL(url).pathname;
  return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
}
