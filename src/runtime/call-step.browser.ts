import type { callStep as CallStep } from './call-step.js';

/**
 * The platform's side of a remote call (runtime.callStep, what `restfn serve` runs for a device),
 * never run in the browser client's worker: loaded only if called, so what it alone needs (request
 * building, credential masking) is not part of what a page loads at start. (The build's plugin lets
 * a sibling import the module it stands for.)
 */
export async function callStep(...args: Parameters<typeof CallStep>): ReturnType<typeof CallStep> {
  const step = await import('./call-step.js');
  return step.callStep(...args);
}
