import { z } from 'zod';
import { strict } from './common.js';

export const solutionDefinition = strict({
  name: z.string().optional().describe('Solution name; defaults to the folder name.'),
  title: z.string().optional(),
  description: z.string().optional(),
  settings: strict({
    custom: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Read as @ctx.solution.settings.custom.<name>.'),
  }).optional(),
});

export type SolutionDefinition = z.output<typeof solutionDefinition>;
