import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ImportError } from './errors.js';
import type { ImportFormat } from './model.js';

// Required rather than imported, as everywhere in restfn (see definition/yaml-file.ts).
const { parse, YAMLParseError } = createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** A description read from a local file, its format and version recognised. */
export interface SourceDocument {
  /** Absolute path of the file. */
  readonly path: string;
  /** The path as given (for messages). */
  readonly shown: string;
  readonly data: Record<string, unknown>;
  readonly format: ImportFormat;
  /** `OpenAPI 3.0.4`, `Swagger 2.0`, `Postman Collection v2.1.0` (or v2.0.0). */
  readonly formatName: string;
}

const SUPPORTED =
  'restfn imports OpenAPI 3.0 and 3.1, Swagger 2.0 and Postman Collection v2.0 and v2.1 (JSON or YAML)';

/** The local file a command-line argument names: a path, or a `file://` URL. Anything else is refused. */
export function sourcePath(argument: string): string {
  if (/^file:/i.test(argument)) {
    try {
      return fileURLToPath(argument);
    } catch (error) {
      throw new ImportError(
        'IMPORT_NOT_LOCAL',
        `${argument} is not a file on this machine (${(error as Error).message}); restfn import reads local files only: copy the description here and import that file`,
        { cause: error },
      );
    }
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(argument)) {
    throw new ImportError(
      'IMPORT_NOT_LOCAL',
      `${argument} is not a local file; restfn import reads local files only (so an import never fetches from the network): download it first, for example 'curl -o api.json ${argument}', and import the file`,
    );
  }
  return resolve(argument);
}

/** Reads the description and tells its format, or fails with a coded error saying what to do. */
export function readSource(argument: string): SourceDocument {
  const path = sourcePath(argument);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a folder, not a file'
          : code === 'EACCES'
            ? 'permission denied'
            : `${code ?? (error as Error).message}`;
    throw new ImportError('IMPORT_UNREADABLE', `cannot read ${argument}: ${why}; check the path`, {
      cause: error,
    });
  }
  const data = parseText(argument, text);
  return { path, shown: argument, data, ...recognise(argument, data) };
}

function parseText(shown: string, text: string): Record<string, unknown> {
  let data: unknown;
  if (/^\s*[{[]/.test(text)) {
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new ImportError(
        'IMPORT_UNREADABLE',
        `${shown} is not valid JSON (${(error as Error).message}); fix the file or export it again`,
        { cause: error },
      );
    }
  } else {
    try {
      data = parse(text);
    } catch (error) {
      const at =
        error instanceof YAMLParseError && error.linePos
          ? `:${error.linePos[0].line}:${error.linePos[0].col}`
          : '';
      const message = (error as Error).message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw new ImportError(
        'IMPORT_UNREADABLE',
        `${shown}${at} is neither JSON nor valid YAML (${message}); fix the file or export it again`,
        { cause: error },
      );
    }
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ImportError(
      'IMPORT_FORMAT',
      `${shown} holds no description (its top is not an object); ${SUPPORTED}`,
    );
  }
  return data as Record<string, unknown>;
}

function recognise(
  shown: string,
  data: Record<string, unknown>,
): { format: ImportFormat; formatName: string } {
  const { openapi, swagger } = data;
  if (openapi !== undefined) {
    if (typeof openapi === 'string' && /^3\.[01]\.\d+$/.test(openapi))
      return { format: 'openapi', formatName: `OpenAPI ${openapi}` };
    throw new ImportError(
      'IMPORT_FORMAT',
      `${shown} is OpenAPI ${String(openapi)}, which restfn import does not read; ${SUPPORTED}`,
    );
  }
  if (swagger !== undefined) {
    if (String(swagger) === '2.0') return { format: 'swagger', formatName: 'Swagger 2.0' };
    throw new ImportError(
      'IMPORT_FORMAT',
      `${shown} is Swagger ${String(swagger)}, which restfn import does not read; convert it to OpenAPI 3 (or Swagger 2.0) first. ${SUPPORTED}`,
    );
  }
  const info = data.info as { schema?: unknown } | undefined;
  const schema = typeof info?.schema === 'string' ? info.schema : undefined;
  if (schema !== undefined) {
    const version = /\/collection\/v(\d+\.\d+\.\d+)\//.exec(schema)?.[1];
    if (version?.startsWith('2.1.') || version?.startsWith('2.0.'))
      return { format: 'postman', formatName: `Postman Collection v${version}` };
    throw new ImportError(
      'IMPORT_FORMAT',
      `${shown} is a Postman collection of another format (${version ? `v${version}` : schema}); export it again as Collection v2.1 (Postman: the collection's menu, Export, Collection v2.1) and import that file`,
    );
  }
  if (Array.isArray(data.requests) && data.order !== undefined) {
    throw new ImportError(
      'IMPORT_FORMAT',
      `${shown} is a Postman collection v1; export it again as Collection v2.1 (Postman: the collection's menu, Export, Collection v2.1) and import that file`,
    );
  }
  if (Array.isArray(data.values) && data._postman_variable_scope !== undefined) {
    throw new ImportError(
      'IMPORT_FORMAT',
      `${shown} is a Postman environment, not a collection: import the collection, and give the environment's values with --var name=value`,
    );
  }
  throw new ImportError(
    'IMPORT_FORMAT',
    `${shown} is not an API description restfn knows: it has no 'openapi', 'swagger' or 'info.schema' (Postman) at its top; ${SUPPORTED}`,
  );
}
