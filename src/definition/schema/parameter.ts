import * as z from 'zod';
import { strict } from './common.js';

export const PARAMETER_LOCATIONS = ['header', 'path', 'query', 'body', 'output'] as const;
export type ParameterLocation = (typeof PARAMETER_LOCATIONS)[number];

export const parameterDefinition = strict({
  location: z
    .enum(PARAMETER_LOCATIONS)
    .optional()
    .describe(
      'Where the value goes: header, path ({name} in url), query, body, or output (kept in @ctx.parameters, never sent). Credentials default to header.',
    ),
  type: z
    .string()
    .optional()
    .describe(
      'Value type: string, number, int, boolean, array, object, image; or a credential kind: secret, <provider>.oauth.',
    ),
  required: z
    .boolean()
    .optional()
    .describe('The value must be supplied (path parameters the url uses always are).'),
  value: z
    .unknown()
    .optional()
    .describe(
      'Fixed value or expression used when the caller passes none; for credentials, the credential key.',
    ),
});

export const parameters = z
  .record(z.string(), parameterDefinition)
  .describe(
    'Parameters by name: usable in url, query, header and body, and in every expression as @ctx.parameters.',
  );
