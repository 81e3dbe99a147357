import { createRequire } from 'node:module';
import type { Document, Node } from 'yaml';

// Required rather than imported: `yaml` is CommonJS, and an `import` of it from an ES module first has
// Node scan each of its files for export names (cjs-module-lexer), a third of loading it (issue 11).
const { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, Scalar, visit } = createRequire(
  import.meta.url,
)('yaml') as typeof import('yaml');

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

  constructor(
    /** The path as shown to the user (relative to where restfn was started, when possible). */
    readonly file: string,
    readonly text: string,
  ) {
    // Repeated keys are found by `repeatedKeys`: the library's own check compares every key of a
    // map with every other (20,000 parameters took 2 s per file; a publish of such files, 30 s).
    this.parsed = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: false });
  }

  /** The parsed document (node tree with source ranges); parsed again from the text after `release`. */
  get doc(): Document.Parsed {
    this.parsed ??= parseDocument(this.text, { prettyErrors: false, uniqueKeys: false });
    return this.parsed;
  }

  /**
   * Lets the node tree go once the file's data is taken (its plain data and its line starts stay).
   * Keeping the trees of every file of a solution until the findings are printed made the garbage
   * collector copy and promote all of them: a quarter of `restfn validate` of 1,000 files (issue 11).
   * A finding that needs a position parses the file's text again, which gives the same tree.
   */
  release(): void {
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

  /**
   * Keys a map repeats (the library's message, at the repeat), one pass per map. Scalar keys
   * count as the same when their values are, as the library decides; other keys never do.
   */
  private repeatedKeys(): Array<{ message: string; offset: number }> {
    const found: Array<{ message: string; offset: number }> = [];
    visit(this.doc, {
      Map: (_key, map) => {
        const seen = new Set<unknown>();
        for (const pair of map.items) {
          if (!isScalar(pair.key)) continue;
          const value = pair.key.value;
          if (seen.has(value))
            found.push({ message: 'Map keys must be unique', offset: pair.key.range?.[0] ?? 0 });
          seen.add(value);
        }
      },
    });
    return found;
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
    const { line, col } = this.lines.linePos(offset);
    return { file: this.file, line, col };
  }

  /**
   * Position of the node at `path`; with `key`, of the key naming it. A path that does not exist (a
   * missing key) resolves to the deepest node that does, so the finding still lands near the cause.
   */
  locate(path: PropertyPath, options: { key?: boolean } = {}): Position {
    let node: Node | null = this.doc.contents;
    let keyNode: Node | undefined;
    for (const segment of path) {
      const next = child(node, segment);
      if (!next) break;
      ({ node, keyNode } = next);
    }
    const target = options.key && keyNode ? keyNode : (node ?? keyNode);
    return this.position(target?.range?.[0] ?? 0);
  }

  /** Position of the character at `index` of the string value at `path` (block scalars included). */
  locateInValue(path: PropertyPath, index: number): Position {
    let node: Node | null = this.doc.contents;
    for (const segment of path) node = child(node, segment)?.node ?? null;
    if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return this.locate(path);
    const [start, end] = node.range;
    const source = this.text.slice(start, end);

    if (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED) {
      // Content starts on the line after the `|`/`>` header; each source line feeds one line of the value
      // (literal: joined by newlines, folded: by spaces), so counting consumed characters finds the line.
      const firstLine = this.lines.linePos(start).line + 1;
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
      return this.position(start);
    }
    // Plain and quoted scalars: the value usually appears verbatim (it does unless escapes or folding
    // changed it); fall back to the opening character of the scalar.
    const at = source.indexOf(node.value);
    return this.position(at === -1 ? start : start + at + index);
  }
}

function child(
  node: Node | null,
  segment: string | number,
): { node: Node | null; keyNode?: Node } | undefined {
  if (isMap(node)) {
    const pair = node.items.find(
      (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment),
    );
    if (!pair) return undefined;
    return { node: (pair.value as Node | null) ?? (pair.key as Node), keyNode: pair.key as Node };
  }
  if (isSeq(node) && typeof segment === 'number') {
    const item = node.items[segment] as Node | undefined;
    return item ? { node: item } : undefined;
  }
  return undefined;
}
