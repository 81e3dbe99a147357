import { isExpression } from '../expression/source.js';

/**
 * A value from a description written as a parameter's `value`. A text starting with `=` would be
 * read as an expression, so it is written as the expression giving that text (`="=state"`).
 */
export function literal(value: unknown): unknown {
  return typeof value === 'string' && isExpression(value) ? `=${JSON.stringify(value)}` : value;
}
