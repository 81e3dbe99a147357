import type { Diagnostic } from '../definition/diagnostic.js';
import { diagnostic } from '../definition/diagnostic.js';
import type { ErrorHandler } from '../definition/schema/index.js';
import type { Solution } from '../definition/solution.js';
import type { Ceilings } from './ceilings.js';

/** One handler's retry value past the operator's ceiling (or under its floor): where, asked, applied. */
export interface CappedRetry {
  readonly path: readonly (string | number)[];
  readonly asked: number;
  readonly applies: number;
  readonly flag: '--max-retries' | '--min-retry-delay-ms';
}

/**
 * The retry values of a function's error handlers that the ceilings change: a `maxRetries` above
 * `--max-retries`, a `delay` below `--min-retry-delay-ms`. Only literal numbers: an expression's
 * value is known at run time, where `decideRetry` holds it to the same ceilings.
 */
export function cappedHandlerRetries(
  handlers: readonly ErrorHandler[] | undefined,
  ceilings: Pick<Ceilings, 'maxRetries' | 'minRetryDelayMs'>,
): CappedRetry[] {
  const capped: CappedRetry[] = [];
  for (const [index, handler] of (handlers ?? []).entries()) {
    const { maxRetries, delay } = handler.retry ?? {};
    if (typeof maxRetries === 'number' && maxRetries > ceilings.maxRetries) {
      capped.push({
        path: ['error', index, 'retry', 'maxRetries'],
        asked: maxRetries,
        applies: ceilings.maxRetries,
        flag: '--max-retries',
      });
    }
    if (typeof delay === 'number' && delay < ceilings.minRetryDelayMs) {
      capped.push({
        path: ['error', index, 'retry', 'delay'],
        asked: delay,
        applies: ceilings.minRetryDelayMs,
        flag: '--min-retry-delay-ms',
      });
    }
  }
  return capped;
}

/** The capped handler retries of every function as publish warnings, at their keys in the function files. */
export function cappedRetries(solution: Solution, ceilings: Ceilings): Diagnostic[] {
  const findings: Diagnostic[] = [];
  for (const file of solution.files) {
    if (file.kind !== 'function' || !file.definition) continue;
    const handlers = (file.definition as { error?: readonly ErrorHandler[] }).error;
    for (const c of cappedHandlerRetries(handlers, ceilings)) {
      const [, index, , key] = c.path;
      const what =
        c.flag === '--max-retries'
          ? `is ${c.asked}, above this platform's ceiling of ${c.applies}`
          : `is ${c.asked} ms, below this platform's floor of ${c.applies} ms`;
      findings.push(
        diagnostic(
          'SETTING_CAPPED',
          `error[${index}].retry.${key} ${what}: ${c.applies} applies (the operator sets it with restfn serve ${c.flag})`,
          file.yaml.locate(c.path),
        ),
      );
    }
  }
  return findings;
}
