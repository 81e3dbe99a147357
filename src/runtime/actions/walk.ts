import { type ActionResult, isScreenStep, type StepResult } from './types.js';

/** Every step of a result in the order it ran, with how deep it sits (inner steps, then follow-ups). */
export function walkSteps(result: StepResult, depth = 0): Array<{ step: StepResult; depth: number }> {
  const out = [{ step: result, depth }];
  if (isScreenStep(result)) return out;
  for (const inner of result.steps ?? []) out.push(...walkSteps(inner, depth + 1));
  const next = result.next === undefined ? [] : Array.isArray(result.next) ? result.next : [result.next];
  for (const step of next as StepResult[]) out.push(...walkSteps(step, depth + 1));
  return out;
}

/** One step as the previews show it. */
export function previewStep(step: StepResult) {
  if (isScreenStep(step))
    return {
      type: step.type,
      ranHere: false,
      ...(step.title === undefined ? {} : { title: step.title }),
      ...(step.description === undefined ? {} : { description: step.description }),
      ...(step.error === undefined ? {} : { error: step.error }),
    };
  const r: ActionResult = step;
  const records = r.synced?.reduce((n, s) => n + s.records, 0);
  return {
    type: r.type,
    ranHere: r.skipped === undefined,
    action: r.action,
    ...(r.entity === undefined ? {} : { entity: r.entity }),
    ...(r.record === undefined ? {} : { record: r.record }),
    ...(records === undefined ? {} : { records }),
    ...(r.skipped === undefined ? {} : { skipped: r.skipped }),
    ...(r.error === undefined ? {} : { error: r.error }),
  };
}
