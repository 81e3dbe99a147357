// The platform's SQL shorthand in datasource queries, rewritten to what SQLite runs (issue 37):
//
// - a single-quoted literal whose whole text is a JSON path (`'$.a.b'`), optionally after a table
//   alias (`c.'$.a'`), reads the row's JSON: `json_extract(<c.>data, '$.a.b')`. Standing alone as
//   a result column it is also named after its last step (`AS [b]`) unless the author names it.
//   A path that is an argument of a JSON function (`json_extract(data, '$.a')`, `json_each`...) or
//   the right side of `->`/`->>` is the path it always was, and is left alone.
// - a double-quoted string that names no column is a string literal (SQLite's legacy behaviour,
//   which the SQLite build here has off): a name "is a column" when the query writes it as an
//   identifier elsewhere (an alias, a CTE or its columns, a bare column), when it is `id`, `data`
//   or `rowid`, or when it is one of the tables the caller names; a double-quoted name after `AS`
//   or next to a `.` is always a name.
//
// One tokenizer pass: comments, literals, bracketed and quoted names are tokens of their own, so a
// `$.` inside a longer literal, an identifier or a comment is never touched.

type Kind = 'space' | 'comment' | 'string' | 'dquote' | 'name' | 'word' | 'number' | 'param' | 'op';

interface Token {
  readonly kind: Kind;
  readonly text: string;
  readonly start: number;
}

export interface RewrittenSql {
  /** What SQLite runs. */
  readonly sql: string;
  /** The offset in the author's text that produced the character at `offset` of `sql`. */
  readonly sourceOffset: (offset: number) => number;
  /** Whether anything was rewritten. */
  readonly changed: boolean;
}

/** `$` then one or more steps: `.name`, `."quoted name"`, `[n]`; it must start with a `.` step. */
const PATH = /^\$(?:\.(?:"[^"]*"|[^.[\]"\s']+)|\[[^\]]*\])+$/;
const STEP = /\.(?:"([^"]*)"|([^.[\]"\s']+))/g;

/** The words after which a result column ends and its alias (or the next clause) begins. */
const CLAUSE_END = new Set(['FROM', 'WHERE', 'GROUP', 'ORDER', 'HAVING', 'LIMIT', 'WINDOW', 'UNION']);
const CLAUSE_END_ALSO = ['INTERSECT', 'EXCEPT', 'VALUES', 'RETURNING', 'ON', 'USING', 'OFFSET'];
for (const w of CLAUSE_END_ALSO) CLAUSE_END.add(w);

/** SQLite's keywords: never a name the query defines, and never an alias after a result column. */
const KEYWORDS = new Set(
  `ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN BETWEEN BY
  CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE
  CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP
  EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM
  FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT
  INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING
  NOTNULL NULL NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY
  RAISE RANGE RECURSIVE REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK
  ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION TRIGGER UNBOUNDED UNION
  UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT TRUE FALSE`.split(/\s+/),
);

/** Splits SQL into tokens; every character belongs to exactly one token. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: Kind, end: number) => {
    tokens.push({ kind, text: sql.slice(i, end), start: i });
    i = end;
  };
  /** The end of a quoted run opened at `i` by `open`, closed by `close`, `close` doubled escaping it. */
  const quoted = (close: string, doubles: boolean) => {
    let j = i + 1;
    for (;;) {
      const k = sql.indexOf(close, j);
      if (k === -1) return sql.length;
      if (doubles && sql[k + 1] === close) j = k + 2;
      else return k + 1;
    }
  };
  while (i < sql.length) {
    const c = sql[i]!;
    const rest = sql.slice(i, i + 2);
    if (/\s/.test(c)) push('space', i + /^\s+/.exec(sql.slice(i))![0].length);
    else if (rest === '--') {
      const k = sql.indexOf('\n', i);
      push('comment', k === -1 ? sql.length : k);
    } else if (rest === '/*') {
      const k = sql.indexOf('*/', i + 2);
      push('comment', k === -1 ? sql.length : k + 2);
    } else if (c === "'") push('string', quoted("'", true));
    else if (c === '"') push('dquote', quoted('"', true));
    else if (c === '`') push('name', quoted('`', true));
    else if (c === '[') push('name', quoted(']', false));
    else if (/[A-Za-z_\u0080-\uffff]/.test(c))
      push('word', i + /^[\w$\u0080-\uffff]+/.exec(sql.slice(i))![0].length);
    else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? '')))
      push('number', i + /^(?:0x[0-9a-f]+|[0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)/i.exec(sql.slice(i))![0].length);
    else if (/[@:$?]/.test(c) && /[\w]/.test(sql[i + 1] ?? ''))
      push('param', i + 1 + /^\w+/.exec(sql.slice(i + 1))![0].length);
    else if (sql.startsWith('->>', i)) push('op', i + 3);
    else if (['->', '||', '<=', '>=', '<>', '!=', '==', '<<', '>>'].includes(rest)) push('op', i + 2);
    else push('op', i + 1);
  }
  return tokens;
}

/** The text a single-quoted SQL literal holds. */
function literalText(token: Token): string {
  return token.text
    .slice(1, token.text.endsWith("'") && token.text.length > 1 ? -1 : undefined)
    .replace(/''/g, "'");
}

/** What a quoted name or word stands for (`[a]`, `"a"`, `` `a` ``, `a`), lower-cased. */
function nameOf(token: Token): string {
  const t = token.text;
  if (token.kind === 'word') return t.toLowerCase();
  const inner = t.slice(1, t.length > 1 && /["\]`]$/.test(t) ? -1 : undefined);
  return (
    t[0] === '"' ? inner.replace(/""/g, '"') : t[0] === '`' ? inner.replace(/``/g, '`') : inner
  ).toLowerCase();
}

/** The column a path names: its last `.name` step (`$.a.b` -> `b`, `$.items[0]` -> `items`). */
export function pathColumn(path: string): string | undefined {
  let last: string | undefined;
  for (const m of path.matchAll(STEP)) last = m[1] ?? m[2];
  return last;
}

function quoteName(name: string): string {
  return name.includes(']') ? `"${name.replace(/"/g, '""')}"` : `[${name}]`;
}

const isWord = (t: Token | undefined, ...words: string[]) =>
  t?.kind === 'word' && words.includes(t.text.toUpperCase());
const isOp = (t: Token | undefined, ...ops: string[]) => t?.kind === 'op' && ops.includes(t.text);
const isIdentifier = (t: Token | undefined) =>
  t !== undefined &&
  (t.kind === 'name' || t.kind === 'dquote' || (t.kind === 'word' && !KEYWORDS.has(t.text.toUpperCase())));

/**
 * Rewrites the shorthand of `sql` (see the top of this file). `tables` are the names the query may
 * read (a double-quoted table name stays a name). Pure: the same text gives the same SQL.
 */
export function rewriteShorthand(sql: string, tables: readonly string[] = []): RewrittenSql {
  const tokens = tokenize(sql);
  const significant = tokens.filter((t) => t.kind !== 'space' && t.kind !== 'comment');
  const names = new Set(['id', 'data', 'rowid', 'oid', '_rowid_', ...tables.map((t) => t.toLowerCase())]);
  for (const [i, t] of significant.entries()) {
    const prev = significant[i - 1];
    if ((t.kind === 'word' && !KEYWORDS.has(t.text.toUpperCase())) || t.kind === 'name') names.add(nameOf(t));
    else if (t.kind === 'dquote' && (isWord(prev, 'AS') || isOp(prev, '.') || isOp(significant[i + 1], '.')))
      names.add(nameOf(t));
  }

  // Each replaced token's new text, and the tokens a replacement swallows (an alias and its dot).
  const replaced = new Map<Token, string>();
  const dropped = new Set<Token>();
  /** One frame per open parenthesis: whether it holds a select list now, and whether it is a JSON function's arguments. */
  const frames: Array<{ select: boolean; json: boolean }> = [{ select: false, json: false }];
  for (const [i, t] of significant.entries()) {
    const frame = frames[frames.length - 1]!;
    const prev = significant[i - 1];
    if (t.kind === 'word') {
      const upper = t.text.toUpperCase();
      if (upper === 'SELECT') frame.select = true;
      else if (CLAUSE_END.has(upper)) frame.select = false;
    } else if (isOp(t, '(')) {
      frames.push({ select: false, json: prev?.kind === 'word' && /^json/i.test(prev.text) });
    } else if (isOp(t, ')')) {
      if (frames.length > 1) frames.pop();
    } else if (t.kind === 'dquote') {
      const definesName = isWord(prev, 'AS') || isOp(prev, '.') || isOp(significant[i + 1], '.');
      if (!definesName && !names.has(nameOf(t))) replaced.set(t, `'${dquoteText(t).replace(/'/g, "''")}'`);
    } else if (t.kind === 'string' && PATH.test(literalText(t))) {
      if (frame.json || isOp(prev, '->', '->>')) continue;
      // `c.'$.x'`: the alias before the dot says whose data.
      const qualified = isOp(prev, '.') && isIdentifier(significant[i - 2]);
      const first = qualified ? i - 2 : i;
      const alias = qualified ? significant[i - 2]!.text : undefined;
      const before = significant[first - 1];
      const after = significant[i + 1];
      const startsColumn = frame.select && (isOp(before, ',') || isWord(before, 'SELECT', 'DISTINCT', 'ALL'));
      const endsColumn =
        after === undefined ||
        isOp(after, ',', ')', ';') ||
        (after.kind === 'word' && CLAUSE_END.has(after.text.toUpperCase()));
      const named =
        isWord(after, 'AS') || (isIdentifier(after) && !CLAUSE_END.has(after!.text.toUpperCase()));
      const column = pathColumn(literalText(t));
      let text = `json_extract(${alias === undefined ? '' : `${alias}.`}data, ${t.text})`;
      if (startsColumn && endsColumn && !named && column !== undefined) text += ` AS ${quoteName(column)}`;
      replaced.set(t, text);
      if (qualified) {
        dropped.add(significant[i - 2]!);
        dropped.add(significant[i - 1]!);
      }
    }
  }

  if (replaced.size === 0) return { sql, sourceOffset: (offset) => offset, changed: false };
  // Rebuild, remembering where each piece came from: an error SQLite reports in the rewritten text
  // is pointed at in the author's.
  let out = '';
  const pieces: Array<{ at: number; from: number; length: number; verbatim: boolean }> = [];
  let pendingStart: number | undefined;
  for (const t of tokens) {
    if (dropped.has(t)) {
      pendingStart ??= t.start;
      continue;
    }
    // Spaces and comments between an alias and its `.'$.x'` go with the replacement.
    if (pendingStart !== undefined && (t.kind === 'space' || t.kind === 'comment')) continue;
    const text = replaced.get(t);
    const from = pendingStart ?? t.start;
    pendingStart = undefined;
    pieces.push({ at: out.length, from, length: (text ?? t.text).length, verbatim: text === undefined });
    out += text ?? t.text;
  }
  const sourceOffset = (offset: number) => {
    for (let k = pieces.length - 1; k >= 0; k--) {
      const p = pieces[k]!;
      if (offset >= p.at) return p.verbatim ? p.from + Math.min(offset - p.at, p.length) : p.from;
    }
    return 0;
  };
  return { sql: out, sourceOffset, changed: true };
}

/** What a double-quoted token holds (`"a""b"` -> `a"b`), case kept. */
function dquoteText(token: Token): string {
  const t = token.text;
  return t.slice(1, t.length > 1 && t.endsWith('"') ? -1 : undefined).replace(/""/g, '"');
}
