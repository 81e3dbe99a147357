import { type ActionResult, isScreenStep, type StepResult } from './types.js';

/** A failure a step reports rather than throws. */
export interface Failure {
  readonly code: string;
  readonly message: string;
}

/** What `onSuccess`/`onError` (and a `goBack`) did after the step, as a list. */
export function followed(result: ActionResult): readonly StepResult[] {
  if (result.next === undefined) return [];
  return Array.isArray(result.next) ? result.next : [result.next as StepResult];
}

/**
 * Whether a step failed: an error it reports, a failed command, a failed record of several, or a
 * follow-up that failed (an action whose onSuccess failed did not do all it was written to do).
 */
export function failed(result: StepResult): boolean {
  if (isScreenStep(result)) return result.error !== undefined;
  if (result.error !== undefined || result.command?.state === 'failed') return true;
  if (result.type === 'action.execute-entities' && (result.steps ?? []).some(failed)) return true;
  return followed(result).some(failed);
}

/** The failure a failed step reports (see `failed`): its own first, then a follow-up's. */
export function failure(result: StepResult): Failure | undefined {
  if (isScreenStep(result)) return result.error;
  if (result.error) return result.error;
  const command =
    result.command?.state === 'failed'
      ? result.command
      : (result.steps ?? []).map((s) => (s as ActionResult).command).find((c) => c?.state === 'failed');
  if (command) {
    return {
      code: 'COMMAND_FAILED',
      message: `command ${command.id} failed: ${command.error?.message ?? 'the service refused the change'}`,
    };
  }
  const next = followed(result).find(failed);
  return next === undefined ? undefined : failure(next);
}

/** A thrown error as a reported failure: its stable code, else INTERNAL. */
export function describeError(error: unknown): Failure {
  const code = (error as { code?: unknown }).code;
  return {
    code: typeof code === 'string' ? code : 'INTERNAL',
    message: error instanceof Error ? error.message : String(error),
  };
}
