import type { z } from 'zod';
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
} as const satisfies Record<string, z.ZodType>;

export type FileKind = keyof typeof SCHEMAS;
export const FILE_KINDS = Object.keys(SCHEMAS) as FileKind[];
