import { type Schema, typeOf } from '../definition/reference-doc.js';
import type { FileKind } from '../definition/schema/index.js';
import type { PropertyPath } from '../definition/yaml-file.js';
import {
  alternatives as alternativesOf,
  childValue,
  type Schema as Raw,
  schemaOf as rawSchemaOf,
  resolve as resolveNode,
} from './completion/schema.js';

/** What docs/reference.md says of one key: its type, whether it is required, its meaning, its default. */
export interface KeyDoc {
  readonly key: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string;
  readonly default?: unknown;
}

function schemaOf(kind: FileKind): Schema {
  return rawSchemaOf(kind) as Schema;
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
    value = childValue(value, step);
  }
  return found;
}

/** zod writes a described reference as `{ description, allOf: [{ $ref }] }`: its type is the reference's. */
function referenced(node: Schema): Schema {
  const all = (node as { allOf?: Schema[] }).allOf;
  return all?.length === 1 && all[0]!.$ref ? all[0]! : node;
}

/** The schema walk completion makes (completion/schema.ts), on reference-doc.ts's schema type. */
function resolve(root: Schema, node: Schema): Schema {
  return resolveNode(root as Raw, node as Raw) as Schema;
}

function alternatives(root: Schema, node: Schema, value: unknown): Schema[] {
  return alternativesOf(root as Raw, node as Raw, value) as Schema[];
}
