/** JSONata guardrails, always set: a runaway expression fails instead of hanging the runtime. */
export interface ExpressionLimits {
  /** Longest evaluation, in milliseconds. @default 2000 */
  readonly timeoutMs: number;
  /** Deepest evaluation stack. @default 500 */
  readonly maxDepth: number;
  /** Longest sequence an expression may build. @default 1000000 */
  readonly maxSequence: number;
  /**
   * Longest text a JSONata function takes or an expression gives, in characters. Several of
   * JSONata's functions turn a text into one array entry per character, and V8 aborts the whole
   * process (no catchable error) past about 134 million entries. @default 10000000
   */
  readonly maxStringLength: number;
}

export const DEFAULT_LIMITS: ExpressionLimits = Object.freeze({
  timeoutMs: 2000,
  maxDepth: 500,
  maxSequence: 1_000_000,
  maxStringLength: 10_000_000,
});

/** The highest `maxStringLength` a solution may set: safely below V8's fatal array size. */
export const MAX_STRING_LENGTH_CEILING = 100_000_000;

/** Which limit an evaluation ran into (`ExpressionError.limit`). */
export type ExpressionLimitKind = 'string-length' | 'array-length' | 'stack' | 'depth';

/** Thrown inside an evaluation when a limit is reached; `evaluateExpression` turns it into an `ExpressionError`. */
export class LimitReached extends Error {
  constructor(
    readonly limit: ExpressionLimitKind,
    message: string,
  ) {
    super(message);
  }
}
