import { onTestFinished } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { type CreateRuntimeOptions, createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { recordingClock } from './clock.js';
import { tempSolution } from './temp-solution.js';

/** A runtime over a temporary solution holding `files`; closed when the test ends. */
export function runtimeFor(files: Record<string, string>, options: CreateRuntimeOptions = {}): Runtime {
  const root = tempSolution(files);
  // Retry delays are recorded, never slept (pass `clock` to read them).
  const runtime = createRuntime(loadSolution(root, { displayBase: root }), {
    clock: recordingClock(),
    ...options,
  });
  onTestFinished(() => runtime.close());
  return runtime;
}
