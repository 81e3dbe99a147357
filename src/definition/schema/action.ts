import { z } from 'zod';
import { parameterValues, strict } from './common.js';
import { REST_PROVIDER } from './function.js';

export const actionDefinition = strict({
  type: z.literal('action.execute-entity'),
  options: strict({
    title: z.string().optional(),
    provider: z.literal(REST_PROVIDER),
    entity: z.string().describe('Local table name.'),
    method: z
      .enum(['create', 'update', 'save', 'delete', 'functionCall'])
      .describe('Local operation applied to the table at once; the remote call is queued.'),
    function: z.string().optional().describe('Function that updates the remote service.'),
    parameters: parameterValues.optional().describe('Values passed to the function.'),
    data: parameterValues.optional().describe('Values written to the local row.'),
    functionParameters: parameterValues.optional().describe('Older form carrying both parameters and data.'),
    queueOperation: z
      .enum(['add', 'replace'])
      .optional()
      .describe('replace collapses queued commands for the record.'),
    onSuccess: z
      .union([z.string(), z.looseObject({ type: z.string() })])
      .optional()
      .describe('Follow-up action, for example { type: action.go-back }.'),
  }),
});

export type ActionDefinition = z.output<typeof actionDefinition>;
