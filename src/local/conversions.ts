import { isHeic, mediaTypeOf } from '../http/media-type.js';
import { ConversionError } from './errors.js';
import type { FileStore } from './files.js';
import { loadHeicConvert } from './heic.js';

export { ConversionError } from './errors.js';

export type ConversionFormat = 'base64' | 'data-uri' | 'buffer' | 'local-uri';

export interface Conversion {
  readonly property: string;
  readonly from: ConversionFormat;
  readonly to: ConversionFormat;
  readonly convertHeicToJpg?: boolean;
}

/**
 * Applies conversions to a body or output: each `property` (a dot path; on a list, in every item)
 * that is present is read in its `from` format and written in its `to` format. Values of other
 * shapes are a `CONVERSION_INPUT` error naming the property.
 */
export async function applyConversions(
  target: unknown,
  conversions: readonly Conversion[],
  files: FileStore | undefined,
): Promise<void> {
  for (const item of Array.isArray(target) ? target : [target]) {
    for (const conversion of conversions) {
      const path = conversion.property.split('.');
      const holder = walk(item, path.slice(0, -1));
      const key = path.at(-1)!;
      if (!holder || !(key in holder) || holder[key] === undefined || holder[key] === null) continue;
      holder[key] = await convert(holder[key], conversion, files);
    }
  }
}

function walk(value: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current !== null && typeof current === 'object' ? (current as Record<string, unknown>) : undefined;
}

async function convert(value: unknown, c: Conversion, files: FileStore | undefined): Promise<unknown> {
  let bytes = read(value, c, files);
  if (c.convertHeicToJpg && isHeic(bytes)) {
    // Loaded on first use: the decoder is an 8 MB WebAssembly bundle most runs never need.
    const heicConvert = await loadHeicConvert(c.property);
    bytes = Buffer.from(await heicConvert({ buffer: bytes, format: 'JPEG', quality: 0.92 }));
  }
  const type = mediaTypeOf(bytes);
  switch (c.to) {
    case 'base64':
      return bytes.toString('base64');
    case 'data-uri':
      return `data:${type.mime};base64,${bytes.toString('base64')}`;
    case 'buffer':
      return bytes;
    case 'local-uri':
      return needFiles(files, c).save(bytes, type.extension);
  }
}

function read(value: unknown, c: Conversion, files: FileStore | undefined): Buffer {
  const wrong = (what: string) =>
    new ConversionError(
      'CONVERSION_INPUT',
      `property '${c.property}' should hold ${what} (conversion from ${c.from})`,
    );
  switch (c.from) {
    case 'base64':
      if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value.replace(/\s/g, '')))
        throw wrong('base64 text');
      return Buffer.from(value, 'base64');
    case 'data-uri': {
      const match = typeof value === 'string' ? /^data:[^,]*?;base64,(.*)$/s.exec(value) : null;
      if (!match) throw wrong('a base64 data URI (data:<type>;base64,...)');
      return Buffer.from(match[1]!, 'base64');
    }
    case 'buffer':
      if (Buffer.isBuffer(value)) return value;
      if (value instanceof Uint8Array) return Buffer.from(value);
      if (isSerialisedBuffer(value)) return Buffer.from(value.data);
      throw wrong('bytes (a Buffer, or its JSON form { type: "Buffer", data: [...] })');
    case 'local-uri':
      if (typeof value !== 'string' || !value.startsWith('file://')) throw wrong('a file:// URI');
      return needFiles(files, c).read(value);
  }
}

/** Bytes as JSON writes a Buffer: `{ type: "Buffer", data: [...] }`. */
export function isSerialisedBuffer(value: unknown): value is { type: 'Buffer'; data: number[] } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'Buffer' &&
    Array.isArray((value as { data?: unknown }).data)
  );
}

function needFiles(files: FileStore | undefined, c: Conversion): FileStore {
  if (!files) {
    throw new ConversionError(
      'CONVERSION_UNAVAILABLE',
      `property '${c.property}' converts ${c.from} to ${c.to}, which needs a file store`,
    );
  }
  return files;
}
