/** JSONata guardrails, always set: a runaway expression fails instead of hanging the runtime. */
export interface ExpressionLimits {
  /** Longest evaluation, in milliseconds. @default 2000 */
  readonly timeoutMs: number;
  /** Deepest evaluation stack. @default 500 */
  readonly maxDepth: number;
  /** Longest sequence an expression may build. @default 1000000 */
  readonly maxSequence: number;
}

export const DEFAULT_LIMITS: ExpressionLimits = Object.freeze({
  timeoutMs: 2000,
  maxDepth: 500,
  maxSequence: 1_000_000,
});
