export { queueCommands } from './queue.js';
export { failed, runAction } from './run.js';
export type { ActionCommand, ActionOptions, ActionResult, ScreenStep, StepResult } from './types.js';
export { isScreenStep } from './types.js';
export { previewStep, walkSteps } from './walk.js';
