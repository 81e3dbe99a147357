import * as z from 'zod';
import { condition, expression, jsonata, localizable, strict } from './common.js';
import { operations } from './operation.js';

export const alert = strict({
  title: localizable.optional(),
  description: localizable.optional(),
  icon: z.string().optional(),
  style: strict({ isNegative: z.boolean().optional() }).optional(),
  presentAs: z.enum(['toast', 'modal']).optional().describe('Presentation over the current screen.'),
  group: strict({ id: z.string() }).optional().describe('Only one alert of a group is visible at a time.'),
});

export const retry = strict({
  delay: z
    .union([z.number().nonnegative(), expression])
    .optional()
    .describe('Wait before the retry, in milliseconds (number or expression).'),
  maxRetries: z
    .union([z.number().int().nonnegative(), expression])
    .optional()
    .describe('Maximum number of retries.'),
});

export const errorHandler = strict({
  when: condition
    .optional()
    .describe(
      'True when the result is an error; must not hold for a 200 response. Default: the provider check (failures, status >= 400).',
    ),
  notification: z.boolean().optional().describe('Show an alert on the device.'),
  alert: alert.optional(),
  title: localizable.optional().describe('Error title for logs.'),
  description: localizable
    .optional()
    .describe('Error description for logs (default: status code and message).'),
  details: z
    .string()
    .optional()
    .describe('Extra details for logs (text or expression), default the response body.'),
  operations: operations
    .optional()
    .describe('Table operations written when the handler matches (error tables).'),
  retry: retry.optional(),
  table: z
    .string()
    .optional()
    .describe(
      'Deprecated (write `operations`): the error table `transform` writes to; default `{entity}_error`.',
    ),
  transform: jsonata
    .optional()
    .describe('Deprecated (write `operations`): the record(s) written to `table` when the handler matches.'),
});

export const errorHandlers = z
  .array(errorHandler)
  .describe('Error handlers, evaluated top to bottom; the first whose `when` holds is used.');
