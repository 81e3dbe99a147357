import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParameterDefinition } from '../definition/schema/index.js';
import { mediaTypeOfFile } from '../http/media-type.js';
import { FileError } from './errors.js';

/** Parameter types that hold a file (the runtime's body-files.ts takes the same). */
const FILE_TYPES = new Set(['file', 'image']);

/**
 * What the caller means by a file parameter's value on the command line: `@path` (curl's
 * convention) is always a file on disk; a `file://` url too; a plain value is a path when a file is
 * there, else what it was before (base64, a data URI). A plain value that is no base64 either
 * (`/tmp/note.txt`, `./note.txt`) is a path whose file is missing.
 */
export type FileArgument = { path: string } | undefined;

export function fileArgument(value: string, cwd: string): FileArgument {
  if (value.startsWith('@')) return { path: resolve(cwd, value.slice(1)) };
  if (value.startsWith('file://')) {
    try {
      return { path: fileURLToPath(value) };
    } catch {
      throw new FileError(`'${value}' is not a file:// url of this machine (file:///absolute/path)`);
    }
  }
  if (value.startsWith('data:')) return undefined;
  const path = resolve(cwd, value);
  if (isFile(path)) return { path };
  return BASE64.test(value.replace(/\s/g, '')) ? undefined : { path };
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The caller's values with each file on disk (for a `type: file` or `image` parameter) read into a
 * data URI that names the file and its media type (from its extension: `.txt` is text/plain): the
 * runtime sends it as the file, the multipart part named by the file's base name, here and through
 * a platform (`--server`), which reads no caller's disk. Other values are returned as they were.
 */
export function readFileParameters(
  given: Readonly<Record<string, unknown>>,
  definitions: Readonly<Record<string, ParameterDefinition>> | undefined,
  cwd = process.cwd(),
): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(given)) {
    const type = definitions && Object.hasOwn(definitions, name) ? definitions[name]!.type : undefined;
    const file =
      typeof value === 'string' && FILE_TYPES.has(type ?? '') ? fileArgument(value, cwd) : undefined;
    out[name] = file ? dataUri(name, file.path) : value;
  }
  return out;
}

function dataUri(name: string, path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'there is no such file'
        : code === 'EISDIR'
          ? 'it is a folder'
          : code === 'EACCES'
            ? 'permission denied'
            : 'it cannot be read';
    throw new FileError(
      `parameter '${name}' is a file, and ${path} cannot be read: ${why} (give @PATH to a file, or its bytes as base64 or a data URI)`,
      { cause: error },
    );
  }
  const filename = basename(path);
  return `data:${mediaTypeOfFile(filename, bytes)};name=${encodeURIComponent(filename)};base64,${bytes.toString('base64')}`;
}
