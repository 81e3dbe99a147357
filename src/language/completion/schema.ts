import { jsonSchema } from '../../definition/json-schema.js';
import type { FileKind } from '../../definition/schema/index.js';

// The JSON Schema of each kind of file (the one editors get from `restfn schema`), walked by key
// path: what completes at a key, and which values a key takes.

export type Schema = Record<string, unknown>;

const SCHEMAS = new Map<FileKind, Schema>();

export function schemaOf(kind: FileKind): Schema {
  let schema = SCHEMAS.get(kind);
  if (!schema) {
    schema = jsonSchema(kind);
    SCHEMAS.set(kind, schema);
  }
  return schema;
}

/**
 * The schema nodes a key path leads to (several where a union allows several shapes). `data`, the
 * file's data (or what the text says of it), picks the branch its `type` names where the schema
 * has branches told apart by `type` (an action's options): the same walk hover's key-doc.ts makes.
 */
export function nodesAt(kind: FileKind, path: ReadonlyArray<string | number>, data?: unknown): Schema[] {
  const root = schemaOf(kind);
  let nodes = [root];
  let value = data;
  for (const step of path) {
    nodes = nodes.flatMap((n) => childSchemas(root, n, step, value));
    value = childValue(value, step);
  }
  return nodes;
}

/** The value under `step` of a file's data, if any. */
export function childValue(value: unknown, step: string | number): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
}

export function resolve(root: Schema, node: Schema): Schema {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
  let at: unknown = root;
  for (const part of ref.slice(2).split('/')) at = (at as Schema | undefined)?.[part];
  return at && typeof at === 'object' ? resolve(root, at as Schema) : node;
}

/**
 * The alternatives a schema node stands for (anyOf/oneOf/allOf flattened); of branches told apart by
 * a `type` constant, only the one `value` (the data there) names, when it names one.
 */
export function alternatives(root: Schema, node: Schema, value?: unknown): Schema[] {
  const n = resolve(root, node);
  const parts = [n.anyOf, n.oneOf, n.allOf].flatMap((a) => (Array.isArray(a) ? (a as Schema[]) : []));
  if (parts.length === 0) return [n];
  const all = [n, ...parts.flatMap((p) => alternatives(root, p, value))];
  const type = childValue(value, 'type');
  const typeOf = (b: Schema) => ((b.properties as Record<string, Schema> | undefined)?.type as Schema)?.const;
  if (type === undefined || !all.some((b) => typeOf(b) === type)) return all;
  return all.filter((b) => typeOf(b) === undefined || typeOf(b) === type);
}

export function propertiesOf(root: Schema, node: Schema, value?: unknown): Record<string, unknown> {
  const all: Record<string, unknown> = {};
  for (const alt of alternatives(root, node, value))
    if (alt.properties && typeof alt.properties === 'object') Object.assign(all, alt.properties);
  return all;
}

function childSchemas(root: Schema, node: Schema, step: string | number, value: unknown): Schema[] {
  const out: Schema[] = [];
  for (const alt of alternatives(root, node, value)) {
    if (typeof step === 'number') {
      if (alt.items && typeof alt.items === 'object') out.push(alt.items as Schema);
    } else {
      const props = alt.properties as Record<string, Schema> | undefined;
      if (props?.[step]) out.push(props[step]);
      else if (alt.additionalProperties && typeof alt.additionalProperties === 'object')
        out.push(alt.additionalProperties as Schema);
    }
  }
  return out;
}

/** The values a schema node lists (enum, const) and `true`/`false` where it takes a boolean. */
export function valuesOf(
  kind: FileKind,
  nodes: readonly Schema[],
): Array<{ value: string; description?: string }> {
  const root = schemaOf(kind);
  const found = new Map<string, string | undefined>();
  for (const node of nodes) {
    const description = resolve(root, node).description as string | undefined;
    for (const alt of alternatives(root, node)) {
      const own = (alt.description as string | undefined) ?? description;
      if (Array.isArray(alt.enum)) for (const v of alt.enum) if (typeof v === 'string') found.set(v, own);
      if (typeof alt.const === 'string' && !found.has(alt.const)) found.set(alt.const, own);
      if (alt.type === 'boolean' || (Array.isArray(alt.type) && alt.type.includes('boolean'))) {
        found.set('true', own);
        found.set('false', own);
      }
    }
  }
  return [...found].map(([value, d]) => ({ value, ...(d ? { description: d } : {}) }));
}
