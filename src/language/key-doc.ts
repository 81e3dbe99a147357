import { jsonSchema } from '../definition/json-schema.js';
import { type Schema, typeOf } from '../definition/reference-doc.js';
import type { FileKind } from '../definition/schema/index.js';
import type { PropertyPath } from '../definition/yaml-file.js';

/** What docs/reference.md says of one key: its type, whether it is required, its meaning, its default. */
export interface KeyDoc {
  readonly key: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string;
  readonly default?: unknown;
}

const SCHEMAS = new Map<FileKind, Schema>();

function schemaOf(kind: FileKind): Schema {
  let schema = SCHEMAS.get(kind);
  if (!schema) {
    schema = jsonSchema(kind) as Schema;
    SCHEMAS.set(kind, schema);
  }
  return schema;
}

/**
 * The reference's entry for the key at `path` of a file of this kind: the same schema (and the same
 * type names) `npm run docs` writes docs/reference.md from. Where the schema has branches (an
 * action's `type`), the branch the file's data takes is read; without data, the first that has the
 * key. A name chosen by the author (a parameter's) is documented as the map it is in.
 */
export function keyDoc(kind: FileKind, data: unknown, path: PropertyPath): KeyDoc | undefined {
  const root = schemaOf(kind);
  let node: Schema = root;
  let value = data;
  let found: KeyDoc | undefined;
  for (const step of path) {
    const alts = alternatives(root, node, value);
    let next: Schema | undefined;
    if (typeof step === 'number') {
      next = alts.find((a) => a.items)?.items;
      found = undefined;
    } else {
      const owner = alts.find((a) => a.properties?.[step]);
      const property = owner?.properties?.[step];
      if (owner && property) {
        next = property;
        const target = resolve(root, property);
        found = {
          key: step,
          type: typeOf(referenced(property)),
          required: owner.required?.includes(step) ?? false,
          description: property.description ?? target.description ?? '',
          ...(property.default !== undefined ? { default: property.default } : {}),
        };
      } else {
        const map = alts.find((a) => typeof a.additionalProperties === 'object');
        next = map?.additionalProperties as Schema | undefined;
        // A name the author chose: what it names is the map's entry, described by the map.
        if (next) {
          const entry = resolve(root, next);
          found = {
            key: step,
            type: typeOf(referenced(next)),
            required: false,
            description: entry.description ?? node.description ?? resolve(root, node).description ?? '',
          };
        }
      }
    }
    if (!next) return undefined;
    node = next;
    value =
      value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
  }
  return found;
}

/** zod writes a described reference as `{ description, allOf: [{ $ref }] }`: its type is the reference's. */
function referenced(node: Schema): Schema {
  const all = (node as { allOf?: Schema[] }).allOf;
  return all?.length === 1 && all[0]!.$ref ? all[0]! : node;
}

function resolve(root: Schema, node: Schema): Schema {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
  let at: unknown = root;
  for (const part of ref.slice(2).split('/')) at = (at as Record<string, unknown> | undefined)?.[part];
  return at && typeof at === 'object' ? resolve(root, at as Schema) : node;
}

/**
 * The object shapes a node stands for (its anyOf/oneOf branches flattened); of branches told apart
 * by a `type` constant, the one the data names, when it names one.
 */
function alternatives(root: Schema, node: Schema, value: unknown): Schema[] {
  const n = resolve(root, node);
  const branches = [...(n.anyOf ?? []), ...(n.oneOf ?? []), ...((n as { allOf?: Schema[] }).allOf ?? [])];
  if (branches.length === 0) return [n];
  const all = branches.flatMap((b) => alternatives(root, b, value));
  const type = value !== null && typeof value === 'object' ? (value as { type?: unknown }).type : undefined;
  const chosen = all.filter(
    (b) => b.properties?.type?.const !== undefined && b.properties.type.const === type,
  );
  return chosen.length > 0 ? chosen : all;
}
