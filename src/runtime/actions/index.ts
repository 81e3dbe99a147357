export { type DefinitionState, definitionState } from './command-source.js';
export { type Failure, failed, failure, followed } from './failure.js';
export { queueCommands } from './queue.js';
export { rebuiltPayload } from './rebuild-command.js';
export { runAction } from './run.js';
export type { ActionCommand, ActionOptions, ActionResult, ScreenStep, StepResult } from './types.js';
export { isScreenStep } from './types.js';
export { previewStep, walkSteps } from './walk.js';
