import { createRequire } from 'node:module';
import type { Node, Pair, YAMLMap } from 'yaml';
import { isCredentialParameterName, looksLikeSecret } from '../definition/credential-params.js';
import type { SourceFile } from '../definition/solution.js';
import { MASK } from '../http/sensitive.js';
import { rangeOf } from './position.js';
import type { TextRange } from './range.js';
import { maskedUrl } from './summary.js';

// Required, as yaml-file.ts does: `yaml` is CommonJS, and importing it costs a scan of its files.
const { isMap, isScalar, isSeq } = createRequire(import.meta.url)('yaml') as typeof import('yaml');

export type OutlineKind =
  | 'function'
  | 'method'
  | 'namespace'
  | 'property'
  | 'variable'
  | 'event'
  | 'array'
  | 'string'
  | 'operator'
  | 'object'
  | 'field';

/** One entry of a file's outline (LSP's DocumentSymbol): the YAML node's range, and its name's. */
export interface OutlineSymbol {
  readonly name: string;
  readonly detail?: string;
  readonly kind: OutlineKind;
  readonly range: TextRange;
  readonly selectionRange: TextRange;
  readonly children: OutlineSymbol[];
}

const TRANSFORMS = new Set(['inputTransform', 'outputTransform', 'records', 'errorTransform', 'output']);
const FOLLOW_UPS = ['onSuccess', 'onError', 'onCancelled'];

/**
 * The outline of a solution's file, by kind: a function's call (method and url), parameters,
 * transforms, error handlers, operations, queries and guard; a datasource's entities and query; an
 * action's steps (nested as they run) and parameters; solution.yaml's settings and expressions.
 * Each symbol spans its YAML node (key and value), and selects its key (or, for a list's entry, the
 * key naming it).
 */
export function documentSymbols(file: SourceFile): OutlineSymbol[] {
  const text = file.yaml.text;
  const root = file.yaml.doc.contents;
  if (!isMap(root)) return [];
  const o = new Outline(text);
  if (file.kind === 'function') return o.function(root);
  if (file.kind === 'datasource') return o.pairs(root, (pair, key) => o.datasourceEntry(pair, key));
  if (file.kind === 'action') {
    const wrapped = root.items.some((p) => keyOf(p) === 'action');
    if (!wrapped) return [o.step(root, o.range(root), undefined)];
    return o.pairs(root, (pair, key) =>
      key === 'action' && isMap(pair.value)
        ? o.step(pair.value, o.pairRange(pair), pair)
        : key === 'parameters'
          ? o.entry(pair, 'namespace', undefined, o.named(pair.value, 'variable', parameterDetail))
          : o.plain(pair),
    );
  }
  return o.pairs(root, (pair, key) =>
    key === 'expressions'
      ? o.entry(pair, 'namespace', undefined, o.named(pair.value, 'function', scalarDetail))
      : key === 'settings'
        ? o.entry(pair, 'namespace', undefined, o.named(pair.value, 'namespace', undefined, true))
        : o.plain(pair),
  );
}

class Outline {
  constructor(private readonly text: string) {}

  range(node: Node): TextRange {
    return this.between(node.range![0], node.range![1]);
  }

  pairRange(pair: Pair): TextRange {
    const key = pair.key as Node;
    const value = pair.value as Node | null;
    return this.between(key.range![0], value?.range?.[1] ?? key.range![1]);
  }

  /** A block's range ends at its last character, not at the start of the next line. */
  private between(start: number, end: number): TextRange {
    let last = end;
    while (last > start && /\s/.test(this.text[last - 1]!)) last--;
    return rangeOf(this.text, start, last);
  }

  /** A map's entries, each made a symbol by `make` (undefined: left out). */
  pairs(map: YAMLMap, make: (pair: Pair, key: string) => OutlineSymbol | undefined): OutlineSymbol[] {
    const out: OutlineSymbol[] = [];
    for (const pair of map.items as Pair[]) {
      const key = keyOf(pair);
      if (key === undefined) continue;
      const symbol = make(pair, key);
      if (symbol) out.push(symbol);
    }
    return out;
  }

  entry(pair: Pair, kind: OutlineKind, detail?: string, children: OutlineSymbol[] = []): OutlineSymbol {
    return {
      name: keyOf(pair)!,
      ...(detail ? { detail } : {}),
      kind,
      range: this.pairRange(pair),
      selectionRange: this.range(pair.key as Node),
      children,
    };
  }

  /** A key with its scalar value as detail, or its map's keys as children. */
  plain(pair: Pair, deep = false): OutlineSymbol {
    const value = pair.value;
    if (isMap(value))
      return this.entry(pair, 'object', undefined, deep ? this.pairs(value, (p) => this.plain(p, true)) : []);
    if (isSeq(value)) return this.entry(pair, 'array', `${value.items.length} entries`);
    return this.entry(pair, 'property', scalarDetail(value));
  }

  /** A map of names the author chose (parameters, queries, expressions, settings): one symbol each. */
  named(
    value: unknown,
    kind: OutlineKind,
    detail?: (value: unknown, key: string) => string | undefined,
    deep = false,
  ): OutlineSymbol[] {
    if (!isMap(value)) return [];
    return this.pairs(value, (pair) =>
      deep && isMap(pair.value)
        ? this.entry(
            pair,
            kind,
            undefined,
            this.pairs(pair.value, (p) => this.plain(p, true)),
          )
        : this.entry(pair, kind, detail?.(pair.value, keyOf(pair) ?? '')),
    );
  }

  /** A list's entries, each named by `name` (a title, a type), selecting the key that names it. */
  list(
    value: unknown,
    kind: OutlineKind,
    name: (item: YAMLMap, i: number) => [string, string | undefined, string?],
  ) {
    if (!isSeq(value)) return [];
    return value.items.flatMap((item, i): OutlineSymbol[] => {
      if (!isMap(item)) return [];
      const [label, detail, selectKey] = name(item, i);
      const select =
        (item.items as Pair[]).find((p) => keyOf(p) === selectKey) ?? (item.items[0] as Pair | undefined);
      return [
        {
          name: label,
          ...(detail ? { detail } : {}),
          kind,
          range: this.range(item as Node),
          selectionRange: select ? this.range(select.key as Node) : this.range(item as Node),
          children: [],
        },
      ];
    });
  }

  function(root: YAMLMap): OutlineSymbol[] {
    const method = scalarOf(root, 'method');
    return this.pairs(root, (pair, key) => {
      if (key === 'method' && scalarOf(root, 'url') !== undefined) return undefined; // shown with the url
      if (key === 'url') {
        const url = scalarOf(root, 'url') ?? '';
        return { ...this.entry(pair, 'method'), name: [method, maskedUrl(url)].filter(Boolean).join(' ') };
      }
      if (key === 'parameters')
        return this.entry(pair, 'namespace', undefined, this.named(pair.value, 'variable', parameterDetail));
      if (TRANSFORMS.has(key)) return this.entry(pair, 'function', scalarDetail(pair.value));
      if (key === 'error')
        return this.entry(
          pair,
          'array',
          undefined,
          this.list(pair.value, 'event', (item, i) => {
            const title = scalarOf(item, 'title');
            const when = scalarOf(item, 'when');
            return [title ?? when ?? `handler ${i + 1}`, title ? when : undefined, title ? 'title' : 'when'];
          }),
        );
      if (key === 'operations') return this.entry(pair, 'array', undefined, this.operations(pair.value));
      if (key === 'queries')
        return this.entry(
          pair,
          'namespace',
          undefined,
          this.named(pair.value, 'field', (v) => (isMap(v) ? scalarOf(v, 'statement') : undefined)),
        );
      if (key === 'guard' && isMap(pair.value))
        return this.entry(pair, 'event', scalarOf(pair.value, 'function'), this.operationsOf(pair.value));
      return this.plain(pair);
    });
  }

  operations(value: unknown): OutlineSymbol[] {
    return this.list(value, 'operator', (item) => [
      scalarOf(item, 'type') ?? 'operation',
      scalarOf(item, 'table'),
      'type',
    ]);
  }

  private operationsOf(map: YAMLMap): OutlineSymbol[] {
    const pair = (map.items as Pair[]).find((p) => keyOf(p) === 'operations');
    return pair ? [this.entry(pair, 'array', undefined, this.operations(pair.value))] : [];
  }

  datasourceEntry(pair: Pair, key: string): OutlineSymbol {
    if (key !== 'options' || !isMap(pair.value)) return this.plain(pair);
    return this.entry(
      pair,
      'object',
      undefined,
      this.pairs(pair.value, (p, k) => {
        if (k === 'entities') return this.entry(p, 'array', undefined, this.entities(p.value));
        if (k === 'query') return this.entry(p, 'string', scalarDetail(p.value));
        if (k === 'queryParameters')
          return this.entry(p, 'namespace', undefined, this.named(p.value, 'variable', passedDetail));
        return this.plain(p);
      }),
    );
  }

  /** Entities: a table name alone, or `{ entity, function }`. */
  private entities(value: unknown): OutlineSymbol[] {
    if (!isSeq(value)) return [];
    return value.items.flatMap((item): OutlineSymbol[] => {
      const node = item as Node;
      if (isScalar(item))
        return [
          {
            name: String(item.value),
            kind: 'field',
            range: this.range(node),
            selectionRange: this.range(node),
            children: [],
          },
        ];
      if (!isMap(item)) return [];
      const entity = (item.items as Pair[]).find((p) => keyOf(p) === 'entity');
      const select = entity?.value && (entity.value as Node).range ? (entity.value as Node) : node;
      const fn = scalarOf(item, 'function');
      return [
        {
          name: scalarOf(item, 'entity') ?? 'entity',
          ...(fn ? { detail: fn } : {}),
          kind: 'field',
          range: this.range(node),
          selectionRange: this.range(select),
          children: [],
        },
      ];
    });
  }

  /**
   * An action: its type, what it names (entity, function or action), and as children the values it
   * passes (`parameters`/`functionParameters`), the actions it runs (a list's, a confirm's, those written in place in onSuccess/onError) and the action files
   * its follow-ups name.
   */
  step(map: YAMLMap, range: TextRange, pair: Pair | undefined): OutlineSymbol {
    const type = scalarOf(map, 'type') ?? scalarOf(map, 'componentId') ?? 'action';
    const typePair = (map.items as Pair[]).find((p) => keyOf(p) === 'type' || keyOf(p) === 'componentId');
    const options = (map.items as Pair[]).find((p) => keyOf(p) === 'options')?.value;
    const children: OutlineSymbol[] = [];
    let detail: string | undefined;
    if (isMap(options)) {
      // The table it writes and the function or action it calls: `tasks · rest-create-task`.
      const names = [
        scalarOf(options, 'entity'),
        scalarOf(options, 'function') ?? scalarOf(options, 'action'),
      ];
      detail = names.filter((n) => n !== undefined).join(' · ') || undefined;
      for (const p of options.items as Pair[]) {
        const key = keyOf(p);
        // The values it passes, each with what it is given.
        if ((key === 'parameters' || key === 'functionParameters') && isMap(p.value))
          children.push(this.entry(p, 'object', undefined, this.named(p.value, 'variable', passedDetail)));
        if (key === 'actions' && isSeq(p.value))
          for (const item of p.value.items)
            if (isMap(item)) children.push(this.step(item, this.range(item as Node), undefined));
        if (key === 'onConfirmed' && isMap(p.value)) children.push(this.step(p.value, this.pairRange(p), p));
        if (key && FOLLOW_UPS.includes(key)) children.push(...this.followUps(p));
      }
    }
    const select = pair ? (pair.key as Node) : ((typePair?.value as Node | undefined) ?? (map as Node));
    return {
      name: type,
      ...(detail ? { detail } : {}),
      kind: 'event',
      range,
      selectionRange: this.range(select),
      children,
    };
  }

  private followUps(pair: Pair): OutlineSymbol[] {
    const key = keyOf(pair)!;
    const items = isSeq(pair.value) ? pair.value.items : [pair.value];
    return items.flatMap((item): OutlineSymbol[] => {
      if (
        isMap(item) &&
        (item.items as Pair[]).some((p) => keyOf(p) === 'type' || keyOf(p) === 'componentId')
      )
        return [this.step(item, this.range(item as Node), undefined)];
      if (isScalar(item) && typeof item.value === 'string') {
        const range = this.range(item as Node);
        return [{ name: `${key}: ${item.value}`, kind: 'event', range, selectionRange: range, children: [] }];
      }
      return [];
    });
  }
}

function keyOf(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

function scalarOf(map: YAMLMap, key: string): string | undefined {
  const value = (map.items as Pair[]).find((p) => keyOf(p) === key)?.value;
  return isScalar(value) && value.value !== null && typeof value.value !== 'object'
    ? String(value.value)
    : undefined;
}

/** A scalar's first line, shortened: what an outline shows beside a name. */
function scalarDetail(value: unknown): string | undefined {
  if (!isScalar(value) || value.value === null || value.value === undefined) return undefined;
  const line = String(value.value).trim().split('\n')[0]!;
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** A value passed (a step's parameter, a query parameter): masked when its name or text says credential. */
function passedDetail(value: unknown, key: string): string | undefined {
  const shown = scalarDetail(value);
  if (shown === undefined || !isScalar(value) || typeof value.value !== 'string') return shown;
  const text = value.value.trim();
  if (text.startsWith('@') || /^\{[^}]*\}$/.test(text)) return shown;
  return isCredentialParameterName(key) || looksLikeSecret(text) ? MASK : shown;
}

/** `string, query, required`. */
function parameterDetail(value: unknown): string | undefined {
  if (!isMap(value)) return undefined;
  const parts = [
    scalarOf(value, 'type'),
    scalarOf(value, 'location'),
    scalarOf(value, 'required') === 'true' ? 'required' : undefined,
  ];
  return parts.filter(Boolean).join(', ') || undefined;
}
