/** Keys whose value is a JSONata expression without `=` (rules/expressions.ts's ALWAYS_JSONATA). */
const TRANSFORM_KEYS = new Set([
  'inputTransform',
  'outputTransform',
  'records',
  'errorTransform',
  'transform',
]);

/** `key: value` on one line (a list item's `- key: value` too), the value not quoted, nor a block. */
const KEY_VALUE = /^(\s*(?:-\s+)?)([A-Za-z_$][\w$-]*):[ \t]+(\S.*?)\s*$/;

/** An expression written plain on a line of YAML: the key, and where its value is on the line (0-based). */
export interface UnquotedExpression {
  readonly key: string;
  readonly start: number;
  readonly end: number;
  readonly value: string;
}

/**
 * Whether a line holds an expression written as a plain YAML scalar (`key: =...`, or a transform's
 * value): one with `: `, `{`, `[` or ` #` in it is not the text it looks like to YAML, and is
 * better quoted or written as a block scalar (`|`).
 */
export function unquotedExpression(line: string): UnquotedExpression | undefined {
  const match = KEY_VALUE.exec(line);
  if (!match) return undefined;
  const [, lead, key, value] = match as unknown as [string, string, string, string];
  if (/^['"|>]/.test(value)) return undefined;
  if (!value.startsWith('=') && !TRANSFORM_KEYS.has(key)) return undefined;
  // Only text YAML reads as more than a scalar: other YAML errors on such a line (a duplicate
  // key) are not about quoting.
  if (!/: |[{}[\]]| #/.test(value)) return undefined;
  // After the key's colon and the blanks following it.
  const colon = lead.length + key.length;
  const start = colon + 1 + line.slice(colon + 1).search(/\S/);
  return { key, start, end: start + value.length, value };
}

/** The advice added to a YAML finding on such a line. */
export function quoteAdvice(key: string): string {
  return `the expression is plain YAML text, where { } [ ] ': ' and ' #' mean YAML: quote it (${key}: '=$merge([$, { "updated": true }])', a ' inside written '') or write it as a block scalar (${key}: | and the expression on the next line, indented)`;
}
