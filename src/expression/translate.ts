/** The JSONata variable `@ctx` and `@.` become (`$ctx`). */
export const CONTEXT_VARIABLE = 'ctx';

/**
 * Joins a script module and its function into one variable name: `$utils.coalesce(` becomes
 * `$utils·coalesce(`. JSONata would otherwise evaluate the arguments of `$utils.coalesce(a)` against
 * `$utils` (a path step) instead of the expression's input. `·` is a name character in JSONata and
 * never appears in a module or function name.
 */
export const MODULE_SEPARATOR = '\u00b7';

/** `$module.function(`: a call of a script module's function. */
const MODULE_CALL = /\$([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\s*\(/y;

/** The variable a module function is bound to. */
export function moduleFunctionVariable(module: string, fn: string): string {
  return `${module}${MODULE_SEPARATOR}${fn}`;
}

export interface Translation {
  readonly text: string;
  /** Maps an index in `text` back to the index in the source it came from. */
  readonly sourceIndex: (translatedIndex: number) => number;
  /**
   * The steps of `@ctx` paths that hold a hyphen (`current-record`), each read as one name and
   * written backquoted in `text`: the name and the source index where it starts.
   */
  readonly hyphenatedSteps: ReadonlyArray<{ readonly name: string; readonly index: number }>;
}

const IDENTIFIER_CHAR = /[A-Za-z0-9_$]/;

/**
 * What ends a name in JSONata: whitespace, quotes and its operator characters. In an `@ctx` path a
 * `-` between two name characters is part of the name, not JSONata's subtraction.
 */
const NOT_IN_NAME = /[\s.[\]{}(),@#;:?+\-*/%|=<>^&!~"'`]/;

function isNameChar(ch: string | undefined): boolean {
  return ch !== undefined && !NOT_IN_NAME.test(ch);
}

/** A step of a path begins with a name character that does not begin a number or a variable. */
function isStepStart(ch: string | undefined): boolean {
  return isNameChar(ch) && !/[0-9$]/.test(ch!);
}

/**
 * The end of an `@ctx` path step starting at `start`: name characters, and hyphens between them
 * (`x-$y` stays a subtraction of a variable).
 */
function stepEnd(source: string, start: number): number {
  let i = start;
  while (
    isNameChar(source[i]) ||
    (source[i] === '-' && i > start && isNameChar(source[i + 1]) && source[i + 1] !== '$')
  )
    i++;
  return i;
}

/**
 * Translates the platform's notation into plain JSONata: `@ctx` and its short alias `@.` become the
 * bound variable `$ctx`, and script calls `$module.fn(` become `$module·fn(`. In the path that
 * follows `@ctx` (its steps, and the steps after a predicate such as `[0]`), a step is everything up
 * to the next `.`, `[`, space or operator character, hyphens included: `@ctx.queries.current-record`
 * reads the name `current-record` (written backquoted), as the platform reads it, never a
 * subtraction. Only code is translated: string literals, backquoted names and comments are copied as
 * they are, and JSONata's own `@$var` binding is left alone.
 */
export function translateContext(source: string): Translation {
  let out = '';
  // Each anchor says: translated index `to` corresponds to source index `from`.
  const anchors: Array<{ from: number; to: number }> = [];
  const hyphenatedSteps: Array<{ name: string; index: number }> = [];
  let i = 0;
  const replace = (width: number, replacement: string) => {
    anchors.push({ from: i, to: out.length });
    out += replacement;
    i += width;
    anchors.push({ from: i, to: out.length });
  };
  // The bracket depth at which an `@ctx` path is open (the next `.name` is one of its steps), and the
  // depths at which its predicates opened (after the `]`, the path goes on).
  let depth = 0;
  let pathAt: number | undefined;
  const predicates: number[] = [];
  /** Copies the step at `i` (the `.` already copied), backquoted when it holds a hyphen. */
  const step = () => {
    const end = stepEnd(source, i);
    const name = source.slice(i, end);
    if (name.includes('-')) {
      hyphenatedSteps.push({ name, index: i });
      out += '`';
      anchors.push({ from: i, to: out.length });
      out += name;
      i = end;
      out += '`';
      anchors.push({ from: i, to: out.length });
    } else {
      out += name;
      i = end;
    }
  };

  while (i < source.length) {
    const ch = source[i]!;
    const inPath = pathAt === depth;
    if (inPath && ch === '.' && isStepStart(source[i + 1])) {
      out += ch;
      i += 1;
      step();
      continue;
    }
    if (inPath && ch === '.' && source[i + 1] === '`') {
      const end = skipQuoted(source, i + 1, '`');
      out += source.slice(i, end);
      i = end;
      continue;
    }
    if (ch === '[') {
      if (inPath) predicates.push(depth);
      pathAt = undefined;
      depth += 1;
      out += ch;
      i += 1;
      continue;
    }
    if (ch === ']') {
      depth = Math.max(0, depth - 1);
      pathAt = undefined;
      if (predicates.at(-1) === depth) {
        predicates.pop();
        pathAt = depth;
      }
      out += ch;
      i += 1;
      continue;
    }
    pathAt = undefined;
    if (ch === '"' || ch === "'" || ch === '`') {
      const end = skipQuoted(source, i, ch);
      out += source.slice(i, end);
      i = end;
    } else if (ch === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      const end = close === -1 ? source.length : close + 2;
      out += source.slice(i, end);
      i = end;
    } else if (ch === '@' && source.startsWith('ctx', i + 1) && !IDENTIFIER_CHAR.test(source[i + 4] ?? '')) {
      replace(4, `$${CONTEXT_VARIABLE}`);
      pathAt = depth;
    } else if (ch === '@' && source[i + 1] === '.') {
      replace(1, `$${CONTEXT_VARIABLE}`);
      pathAt = depth;
    } else if (ch === '$' && moduleCallAt(source, i)) {
      const [, module, fn] = moduleCallAt(source, i)!;
      // Same length: `.` becomes `·`, so positions need no anchor.
      out += `$${moduleFunctionVariable(module!, fn!)}`;
      i += 1 + module!.length + 1 + fn!.length;
    } else {
      out += ch;
      i += 1;
    }
  }

  return {
    text: out,
    hyphenatedSteps,
    sourceIndex(index) {
      let from = 0;
      let to = 0;
      for (const anchor of anchors) {
        if (anchor.to > index) break;
        ({ from, to } = anchor);
      }
      return from + (index - to);
    },
  };
}

function moduleCallAt(source: string, at: number): RegExpExecArray | null {
  MODULE_CALL.lastIndex = at;
  const match = MODULE_CALL.exec(source);
  if (!match || match[1] === CONTEXT_VARIABLE) return null;
  // `($o := {"f": ...}; $o.f(3))` calls a function of an object the expression binds itself.
  const binds = new RegExp(`\\$${match[1]}\\s*:=|function\\s*\\([^)]*\\$${match[1]}\\b`);
  return binds.test(source) ? null : match;
}

/** Index just past the closing quote; backslash escapes apply in string literals, not in backquotes. */
function skipQuoted(source: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '\\' && quote !== '`') i += 2;
    else if (ch === quote) return i + 1;
    else i += 1;
  }
  return source.length;
}
