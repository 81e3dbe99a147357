/**
 * A string value that begins with `=` is an expression (JSONata after the `=`). In the fields that are
 * always JSONata (`inputTransform`, `outputTransform`, `records`) the leading `=` is optional.
 */
export interface ExpressionSource {
  /** The JSONata text, without the leading `=`. */
  readonly body: string;
  /** Index of `body` inside the original string value, to map positions back into the file. */
  readonly offset: number;
}

export function isExpression(value: unknown): boolean {
  return typeof value === 'string' && value.trimStart().startsWith('=');
}

/** Splits off the `=`; returns undefined for a plain (non-expression) string unless `alwaysJsonata`. */
export function expressionSource(value: string, alwaysJsonata = false): ExpressionSource | undefined {
  const lead = value.length - value.trimStart().length;
  if (value[lead] === '=') return { body: value.slice(lead + 1), offset: lead + 1 };
  return alwaysJsonata ? { body: value, offset: 0 } : undefined;
}
