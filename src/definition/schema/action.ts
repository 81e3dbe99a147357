import * as z from 'zod';
import { parameterValues, strict } from './common.js';
import { REST_PROVIDER } from './function.js';

/** Changes a local record and queues the remote call that changes the remote one (spec 4.4). */
const executeEntity = strict({
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
      .describe('Follow-up action: the name of an action file, or one such as { type: action.go-back }.'),
  }),
});

/** The command-queue actions an error screen offers (spec 7.3), each by command id. */
const queueOptions = strict({
  title: z.string().optional(),
  commandId: z
    .union([z.string(), z.array(z.string())])
    .describe('The command id (the id of its row in the {entity}_error table), or a list of them.'),
  onSuccess: z.union([z.string(), z.looseObject({ type: z.string() })]).optional(),
});

export const QUEUE_ACTION_TYPES = [
  'action.retry-queue-command',
  'action.delete-queue-command',
  'action.clear-queue',
] as const;

export const actionDefinition = z.discriminatedUnion('type', [
  executeEntity,
  ...QUEUE_ACTION_TYPES.map((type) => strict({ type: z.literal(type), options: queueOptions })),
] as [typeof executeEntity, ...Array<z.ZodObject>]);

export type ExecuteEntityAction = z.output<typeof executeEntity>;
export type QueueAction = {
  readonly type: (typeof QUEUE_ACTION_TYPES)[number];
  readonly options: z.output<typeof queueOptions>;
};
export type ActionDefinition = ExecuteEntityAction | QueueAction;
