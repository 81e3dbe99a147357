import { jsonSchema } from '../definition/json-schema.js';
import type { FileKind } from '../definition/schema/index.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import { lineAt } from './range.js';

/** One completion: the text to insert, what it is, and its documentation. */
export interface CompletionEntry {
  readonly label: string;
  readonly kind: 'function' | 'key';
  readonly detail?: string;
  readonly documentation?: string;
}

/**
 * What may be typed at a position of a definition file: after `function:` in a datasource or an
 * action, the solution's function names (with method and url); at a key, the keys the schema
 * allows there (with their descriptions), found from the keys the lines above are indented under.
 */
export function completions(
  file: SourceFile,
  line: number,
  character: number,
  solution: Solution,
): CompletionEntry[] {
  const before = lineAt(file.yaml.text, line).slice(0, character);
  if (/^\s*(?:-\s+)?function:\s*[\w.-]*$/.test(before) && file.kind !== 'solution') {
    return [...solution.functions.values()].map((f) => ({
      label: f.name,
      kind: 'function',
      detail: functionDetail(f),
    }));
  }
  const key = /^(\s*)(-\s+)?[\w-]*$/.exec(before);
  if (key)
    return keyCompletions(file.kind, file.yaml.text, line, key[1]!.length + (key[2]?.length ?? 0), !!key[2]);
  return [];
}

function functionDetail(f: SourceFile<'function'>): string | undefined {
  const d = f.data as { method?: unknown; url?: unknown } | null | undefined;
  if (!d || typeof d !== 'object') return undefined;
  return [d.method, d.url].filter((v) => typeof v === 'string').join(' ') || undefined;
}

type Schema = Record<string, unknown>;

const SCHEMAS = new Map<FileKind, Schema>();

function schemaOf(kind: FileKind): Schema {
  let schema = SCHEMAS.get(kind);
  if (!schema) {
    schema = jsonSchema(kind);
    SCHEMAS.set(kind, schema);
  }
  return schema;
}

/** The keys allowed at `indent` on `line`: the path is read from the less indented keys above. */
function keyCompletions(
  kind: FileKind,
  text: string,
  line: number,
  indent: number,
  inItem: boolean,
): CompletionEntry[] {
  const path: Array<string | number> = inItem ? [0] : [];
  let limit = indent - (inItem ? 2 : 0);
  for (let i = line - 1; i >= 0 && limit > 0; i--) {
    const m = /^(\s*)(-\s+)?([\w-]+):\s*(#.*)?$/.exec(lineAt(text, i));
    const item = /^(\s*)-\s/.exec(lineAt(text, i));
    if (item && item[1]!.length < limit && !m) {
      path.unshift(0);
      limit = item[1]!.length;
      continue;
    }
    if (!m) continue;
    const at = m[1]!.length + (m[2]?.length ?? 0);
    if (at >= limit) continue;
    path.unshift(m[3]!);
    if (m[2]) path.unshift(0);
    limit = m[2] ? m[1]!.length : at;
  }
  const root = schemaOf(kind);
  let nodes = [root];
  for (const step of path) nodes = nodes.flatMap((n) => childSchemas(root, n, step));
  const entries = new Map<string, CompletionEntry>();
  for (const node of nodes)
    for (const [name, property] of Object.entries(propertiesOf(root, node))) {
      if (entries.has(name)) continue;
      const description = (resolve(root, property as Schema).description as string | undefined) ?? undefined;
      entries.set(name, { label: name, kind: 'key', ...(description ? { documentation: description } : {}) });
    }
  return [...entries.values()];
}

function resolve(root: Schema, node: Schema): Schema {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
  let at: unknown = root;
  for (const part of ref.slice(2).split('/')) at = (at as Schema | undefined)?.[part];
  return at && typeof at === 'object' ? resolve(root, at as Schema) : node;
}

/** The alternatives a schema node stands for (anyOf/oneOf/allOf flattened). */
function alternatives(root: Schema, node: Schema): Schema[] {
  const n = resolve(root, node);
  const parts = [n.anyOf, n.oneOf, n.allOf].flatMap((a) => (Array.isArray(a) ? (a as Schema[]) : []));
  return parts.length > 0 ? [n, ...parts.flatMap((p) => alternatives(root, p))] : [n];
}

function propertiesOf(root: Schema, node: Schema): Record<string, unknown> {
  const all: Record<string, unknown> = {};
  for (const alt of alternatives(root, node))
    if (alt.properties && typeof alt.properties === 'object') Object.assign(all, alt.properties);
  return all;
}

function childSchemas(root: Schema, node: Schema, step: string | number): Schema[] {
  const out: Schema[] = [];
  for (const alt of alternatives(root, node)) {
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
