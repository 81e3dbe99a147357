import * as z from 'zod';
import { strict } from './common.js';

export const PARAMETER_LOCATIONS = ['header', 'path', 'query', 'body', 'output'] as const;
export type ParameterLocation = (typeof PARAMETER_LOCATIONS)[number];

/** How a query parameter's list or object is written (OpenAPI's styles). */
export const QUERY_STYLES = ['form', 'deepObject', 'pipeDelimited', 'spaceDelimited'] as const;
export type QueryStyle = (typeof QUERY_STYLES)[number];

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
      'Value type: string, number, int, boolean, array, object, file, image; or a credential kind: secret, <provider>.oauth.',
    ),
  style: z
    .enum(QUERY_STYLES)
    .optional()
    .describe(
      "How a query parameter's list or object is written: form (a=x&a=y, an object's keys as their own parameters; with explode: false a=x,y), deepObject (a[k]=v, a[]=x, as Stripe and Rails read), pipeDelimited (a=x|y), spaceDelimited (a=x y). Default: a list repeats the key, an object is JSON text. On a field of a form or multipart body: form (a list repeats the key, a=x&a=y) or deepObject (the default, a[]=x).",
    ),
  explode: z
    .boolean()
    .optional()
    .describe(
      'With style form: false writes a list (or an object) as one comma-separated value. Default true.',
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
