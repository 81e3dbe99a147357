import type { Document, Node, Scalar as ScalarNode } from 'yaml';
import { yamlLibrary } from './yaml-library.js';

const { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, Scalar, visit } = yamlLibrary;

/**
 * Most alias expansions one file may have. Aliases may expand into aliases, so a few lines can stand
 * for billions of values ("billion laughs"); definition files need few.
 */
export const MAX_ALIAS_COUNT = 100;

export type PropertyPath = ReadonlyArray<string | number>;

export interface Position {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/**
 * One YAML file with its positions kept, so every finding can point at `file:line:col`: at a key, at
 * a value, or at a character inside a scalar (where an expression went wrong).
 */
export class YamlFile {
  private parsed: Document.Parsed | undefined;
  private readonly lines = new LineCounter();
  /** Whether `lines` holds the line starts (the first parse fills them). */
  private counted = false;

  constructor(
    /** The path as shown to the user (relative to where restfn was started, when possible). */
    readonly file: string,
    readonly text: string,
    /**
     * `lazy`: parsed only when a position or the node tree is first asked for. A solution revived
     * from its prepared form (prepared-solution.ts) has its data already; most of its files are
     * never asked where something is.
     */
    options: { lazy?: boolean } = {},
  ) {
    if (!options.lazy) this.parsed = this.parse();
  }

  private parse(): Document.Parsed {
    // Repeated keys are found by `repeatedKeys`: the library's own check compares every key of a
    // map with every other (20,000 parameters took 2 s per file; a publish of such files, 30 s).
    const doc = parseDocument(this.text, {
      ...(this.counted ? {} : { lineCounter: this.lines }),
      prettyErrors: false,
      uniqueKeys: false,
    });
    this.counted = true;
    return doc;
  }

  /** The parsed document (node tree with source ranges); parsed again from the text after `release`. */
  get doc(): Document.Parsed {
    this.parsed ??= this.parse();
    return this.parsed;
  }

  /**
   * Lets the node tree go once the file's data is taken (its plain data, its line starts and the
   * places of its nodes stay). Keeping the trees of every file of a solution until the findings are
   * printed made the garbage collector copy and promote all of them: a quarter of `restfn validate`
   * of 1,000 files (issue 11).
   */
  release(): void {
    if (this.parsed) this.index();
    this.parsed = undefined;
  }

  /** YAML syntax errors (including repeated keys), each with its position. */
  syntaxErrors(): Array<{ message: string; at: Position }> {
    const errors = this.doc.errors.map((e) => ({ message: e.message.split('\n')[0]!, offset: e.pos[0] }));
    errors.push(...this.repeatedKeys());
    return errors
      .sort((a, b) => a.offset - b.offset)
      .map((e) => ({ message: e.message, at: this.position(e.offset) }));
  }

  /** Keys a map repeats (the library's message, at the repeat): found by the walk that places nodes. */
  private repeatedKeys(): Array<{ message: string; offset: number }> {
    return this.index().repeated;
  }

  /**
   * Aliases that cannot become data: one inside the node it names (`a: &a [*a]`, endless data), one
   * naming no anchor, or so many expansions that the file is an alias bomb. Each makes the file
   * unusable, never the command: the finding is reported and the file has no data.
   */
  aliasErrors(): Array<{ message: string; at: Position }> {
    const found: Array<{ message: string; at: Position }> = [];
    // Every alias is written `*name`: a file without a `*` has none, and need not be walked.
    if (!this.text.includes('*')) return found;
    let first: Node | undefined;
    visit(this.doc, {
      Alias: (_key, alias, path) => {
        first ??= alias;
        const target = alias.resolve(this.doc);
        if (target && path.includes(target)) {
          found.push({
            message: `the alias *${alias.source} is inside the node its anchor names, so the value would never end; write the value out instead`,
            at: this.position(alias.range?.[0] ?? 0),
          });
        }
      },
    });
    if (found.length > 0 || !first) return found;
    try {
      this.data = { value: this.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
    } catch (error) {
      const bomb = /alias count/i.test((error as Error).message);
      found.push({
        message: bomb
          ? `aliases expand into more than ${MAX_ALIAS_COUNT} values (an alias bomb); write the values out or use fewer aliases`
          : `${(error as Error).message.split('\n')[0]}; fix the alias`,
        at: this.position(first.range?.[0] ?? 0),
      });
    }
    return found;
  }

  private data: { value: unknown } | undefined;

  /** The file as plain data; call only for a file without syntax or alias errors. */
  toJS(): unknown {
    this.data ??= { value: this.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
    return this.data.value;
  }

  position(offset: number): Position {
    if (!this.counted) this.parsed ??= this.parse();
    const { line, col } = this.lines.linePos(offset);
    return { file: this.file, line, col };
  }

  /**
   * Position of the node at `path`; with `key`, of the key naming it. A path that does not exist (a
   * missing key) resolves to the deepest node that does, so the finding still lands near the cause.
   */
  locate(path: PropertyPath, options: { key?: boolean } = {}): Position {
    const place = this.find(path);
    return this.position((options.key ? place.key : undefined) ?? place.at);
  }

  /** Position of the character at `index` of the string value at `path` (block scalars included). */
  locateInValue(path: PropertyPath, index: number): Position {
    const place = this.find(path, true);
    const text = place.text;
    if (!text) return this.locate(path);
    const source = this.text.slice(place.at, text.end);

    if (text.type === Scalar.BLOCK_LITERAL || text.type === Scalar.BLOCK_FOLDED) {
      // Content starts on the line after the `|`/`>` header; each source line feeds one line of the value
      // (literal: joined by newlines, folded: by spaces), so counting consumed characters finds the line.
      const firstLine = this.lines.linePos(place.at).line + 1;
      const contentLines = source.split('\n').slice(1);
      // The block's indentation is that of its first non-empty line; deeper indentation is content.
      const firstContent = contentLines.find((l) => l.trim().length > 0) ?? '';
      const indent = firstContent.length - firstContent.trimStart().length;
      let remaining = index;
      for (const [i, lineText] of contentLines.entries()) {
        const width = Math.max(0, lineText.length - indent);
        if (remaining <= width) return { file: this.file, line: firstLine + i, col: indent + remaining + 1 };
        remaining -= width + 1;
      }
      return this.position(place.at);
    }
    // Plain and quoted scalars: the value usually appears verbatim (it does unless escapes or folding
    // changed it); fall back to the opening character of the scalar.
    const at = source.indexOf(text.value);
    return this.position(at === -1 ? place.at : place.at + at + index);
  }

  /**
   * The place of the node at `path`, or of the deepest node on it that exists (`exact`: the root's
   * place, with no text, when the path does not exist). Positions are looked up in the file's
   * places, kept when the node tree is let go: a finding after `release` (every CONTEXT_PATH
   * warning of a 1,000-file solution) would otherwise parse the file a second time.
   */
  private find(path: PropertyPath, exact = false): Place {
    let place = this.places;
    for (const segment of path) {
      const found = childOf(place, segment);
      if (!found) return exact ? { at: place.at, kind: 'other' } : place;
      place = found;
    }
    return place;
  }

  private get places(): Place {
    return this.index().places;
  }

  /** The nodes' places and the repeated keys, from one walk of the tree (parsed again if let go). */
  private index(): Indexed {
    this.indexed ??= indexOf(this.doc);
    return this.indexed;
  }

  private indexed: Indexed | undefined;
}

/**
 * Where a node starts (and its key, for a map's value); for a string scalar, its text. A tree like
 * the document's, without its nodes: a map's children by key (the first of repeated keys, as a
 * lookup by key finds it), a sequence's by index.
 */
interface Place {
  readonly at: number;
  readonly key?: number | undefined;
  readonly kind: 'map' | 'seq' | 'other';
  readonly text?: { readonly end: number; readonly type: ScalarNode['type']; readonly value: string };
  /** A map's children by key, a sequence's by index. */
  readonly children?: Map<string, Place> | Place[];
}

interface Indexed {
  readonly places: Place;
  /** Keys a map repeats, at the repeat, in document order. */
  readonly repeated: Array<{ message: string; offset: number }>;
}

/**
 * One walk of the tree: every node's place, and the keys maps repeat. Scalar keys count as the
 * same when their values are, as the library decides; other keys never do, but every map is
 * checked, keys that are collections and pairs of flow sequences (`[a: 1]`) included. (The
 * library's own check compares every key of a map with every other: 20,000 parameters took 2 s.)
 */
function indexOf(doc: Document.Parsed): Indexed {
  const repeated: Array<{ message: string; offset: number }> = [];
  const repeat = (key: Node) =>
    repeated.push({ message: 'Map keys must be unique', offset: key.range?.[0] ?? 0 });
  // What no place is kept for (a collection as a key, a repeated key's value): repeated keys only.
  const scan = (node: unknown): void => {
    if (isMap(node) || isSeq(node) || isPair(node)) placeOf(node as Node, undefined);
  };
  const placeOf = (node: Node | null, key: number | undefined): Place => {
    const at = node?.range?.[0] ?? key ?? 0;
    if (isMap(node)) {
      const children = new Map<string, Place>();
      // Key values seen, made only once two keys read alike (`1` and `'1'` do, and are not the same).
      let values: Set<unknown> | undefined;
      for (const [i, pair] of node.items.entries()) {
        if (!isScalar(pair.key)) {
          scan(pair.key);
          scan(pair.value);
          continue;
        }
        const keyNode = pair.key as Node;
        const name = String(pair.key.value);
        if (!children.has(name)) {
          children.set(name, placeOf((pair.value as Node | null) ?? keyNode, keyNode.range?.[0]));
          values?.add(pair.key.value);
          continue;
        }
        values ??= new Set(node.items.slice(0, i).flatMap((p) => (isScalar(p.key) ? [p.key.value] : [])));
        if (values.has(pair.key.value)) repeat(keyNode);
        values.add(pair.key.value);
        scan(pair.value);
      }
      return { at, key, kind: 'map', children };
    }
    if (isSeq(node)) {
      return { at, key, kind: 'seq', children: node.items.map((item) => placeOf(item as Node, undefined)) };
    }
    if (isPair(node)) {
      scan(node.key);
      scan(node.value);
      return { at, key, kind: 'other' };
    }
    if (isScalar(node) && typeof node.value === 'string' && node.range) {
      return { at, key, kind: 'other', text: { end: node.range[1], type: node.type, value: node.value } };
    }
    return { at, key, kind: 'other' };
  };
  return { places: placeOf(doc.contents, undefined), repeated };
}

/** A child's place: a map's by key (an index names a key too), a sequence's by index. */
function childOf(place: Place, segment: string | number): Place | undefined {
  if (place.kind === 'map') return (place.children as Map<string, Place>).get(String(segment));
  if (place.kind === 'seq' && typeof segment === 'number') return (place.children as Place[])[segment];
  return undefined;
}
