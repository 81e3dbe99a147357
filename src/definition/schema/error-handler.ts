import * as z from 'zod';
import { condition, expression, jsonata, localizable, strict } from './common.js';
import { operations } from './operation.js';

/** Seconds, or an expression giving them. */
const seconds = z.union([z.number().nonnegative(), expression]);

export const alert = strict({
  title: localizable.optional().describe('Heading (text or expression).'),
  subtitle: localizable.optional().describe('Text below the title (text or expression).'),
  description: localizable.optional().describe('Message (text or expression).'),
  icon: z.string().optional(),
  style: strict({
    isNegative: z.boolean().optional(),
    isWarning: z.boolean().optional(),
    isPositive: z.boolean().optional(),
  })
    .optional()
    .describe('Tone of the alert; default isNegative.'),
  dismiss: z
    .union([
      seconds,
      strict({
        autoAfter: seconds.optional().describe('Seconds after which the alert closes by itself.'),
        isEnabled: z.boolean().optional().describe('The user may close it (default true).'),
      }),
    ])
    .optional()
    .describe('How the alert closes: seconds (closes by itself after them), or { autoAfter, isEnabled }.'),
  actions: z
    .array(
      strict({
        title: localizable.describe('Button text (text or expression).'),
        action: z
          .union([z.string(), z.record(z.string(), z.unknown())])
          .describe("What the button does: an action's name, or an action as a screen writes it."),
      }),
    )
    .optional()
    .describe('Buttons of the alert; carried to the device as written (a step for a screen).'),
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
  icon: z.string().optional().describe("Icon of the handler's alert when `alert.icon` is not set."),
  title: localizable.optional().describe('Error title for logs (text or expression).'),
  description: localizable
    .optional()
    .describe('Error description for logs (text or expression; default: status code and message).'),
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
