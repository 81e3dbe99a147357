/**
 * The little of JSON Schema (as OpenAPI and Swagger use it) that an import needs: a parameter's type,
 * and the top-level properties of a request body. Schemas arrive dereferenced, possibly circular:
 * nothing here walks deeper than the top level (and `allOf` members, once each).
 */

export type Schema = Record<string, unknown>;

export function asObject(value: unknown): Schema | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
}

const TYPES: Record<string, string> = {
  string: 'string',
  integer: 'int',
  number: 'number',
  boolean: 'boolean',
  array: 'array',
  object: 'object',
};

/** restfn's parameter type for a schema, or undefined when it names none (`anyOf`, no type at all). */
export function restfnType(schema: unknown, seen = new Set<unknown>()): string | undefined {
  const s = asObject(schema);
  if (!s || seen.has(s)) return undefined;
  seen.add(s);
  // OpenAPI 3.1 (JSON Schema): `type: [string, 'null']`.
  const types = (Array.isArray(s.type) ? s.type : [s.type]).filter(
    (t) => typeof t === 'string' && t !== 'null',
  );
  // A file: OpenAPI 3's binary string (a multipart part, an upload), Swagger 2's `file`.
  if (types.length === 1 && ((types[0] === 'string' && s.format === 'binary') || types[0] === 'file'))
    return 'file';
  if (types.length === 1) return TYPES[types[0] as string];
  if (types.length > 1) return undefined;
  if (s.properties !== undefined) return 'object';
  if (s.items !== undefined) return 'array';
  if (Array.isArray(s.allOf)) {
    for (const member of s.allOf) {
      const type = restfnType(member, seen);
      if (type) return type;
    }
  }
  return undefined;
}

export interface ObjectShape {
  readonly properties: ReadonlyArray<readonly [string, Schema]>;
  readonly required: ReadonlySet<string>;
}

/** The top-level properties of an object schema (`allOf` members merged), or undefined when it has none. */
export function objectShape(schema: unknown): ObjectShape | undefined {
  const properties = new Map<string, Schema>();
  const required = new Set<string>();
  const seen = new Set<unknown>();
  const add = (value: unknown) => {
    const s = asObject(value);
    if (!s || seen.has(s)) return;
    seen.add(s);
    for (const [name, property] of Object.entries(asObject(s.properties) ?? {})) {
      properties.set(name, asObject(property) ?? {});
    }
    if (Array.isArray(s.required))
      for (const name of s.required) if (typeof name === 'string') required.add(name);
    if (Array.isArray(s.allOf)) for (const member of s.allOf) add(member);
  };
  add(schema);
  return properties.size > 0 ? { properties: [...properties], required } : undefined;
}

/** One line about a parameter for the comment above it: its description, allowed values, deprecation. */
export function describeSchema(
  description: unknown,
  schema: Schema | undefined,
  extra: string[] = [],
): string | undefined {
  const parts: string[] = [];
  const text = firstLine(description);
  if (text) parts.push(text);
  const values = Array.isArray(schema?.enum)
    ? schema.enum
    : Array.isArray(asObject(schema?.items)?.enum)
      ? (asObject(schema?.items)?.enum as unknown[])
      : undefined;
  if (values && values.length > 0) {
    const shown = values.slice(0, 12).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    parts.push(`one of: ${shown.join(', ')}${values.length > 12 ? ', ...' : ''}`);
  }
  parts.push(...extra);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** The first line of a text, trimmed and bounded; undefined for nothing. */
export function firstLine(text: unknown, limit = 160): string | undefined {
  if (typeof text !== 'string') return undefined;
  const line = text
    .split(/\r\n|\r|\n/)
    .find((l) => l.trim() !== '')
    ?.trim();
  if (!line) return undefined;
  return line.length > limit ? `${line.slice(0, limit - 3)}...` : line;
}
