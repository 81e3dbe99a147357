import type { z } from 'zod';
import type { FileKind } from '../file-kinds.js';
import { actionDefinition } from './action.js';
import { datasourceDefinition } from './datasource.js';
import { functionDefinition } from './function.js';
import { solutionDefinition } from './solution.js';

export * from './action.js';
export * from './datasource.js';
export * from './function.js';
export * from './solution.js';

/** The kinds of file in a solution, each with its schema: the single source of truth. */
export const SCHEMAS = {
  function: functionDefinition,
  datasource: datasourceDefinition,
  action: actionDefinition,
  solution: solutionDefinition,
} as const satisfies Record<FileKind, z.ZodType>;

export { FILE_KINDS, type FileKind } from '../file-kinds.js';
