import * as z from 'zod';
import { condition, expression, jsonata, parameterValues, strict } from './common.js';
import { errorHandlers } from './error-handler.js';
import { conversions, operations, scopeInRange, scopeWithValues } from './operation.js';
import { parameters } from './parameter.js';

export const METHODS = ['DELETE', 'GET', 'HEAD', 'PUT', 'PATCH', 'POST'] as const;
export const FORMATS = ['json', 'text', 'pdf', 'xml'] as const;
export const REST_PROVIDER = 'DATA_PROVIDER_REST';

export const query = strict({
  statement: z.string().describe('SQLite SQL; tables written [name]; @name binds a parameter.'),
  parameters: parameterValues.optional(),
  resultType: z
    .enum(['records', 'record', 'scalar'])
    .optional()
    .describe(
      'records: all rows (default); record: the first row or null; scalar: first column of first row.',
    ),
  jsonColumns: z
    .union([z.array(z.string()), expression])
    .optional()
    .describe('Columns returned parsed from JSON: a list, or an expression giving one.'),
  dependencies: z.array(z.string()).optional().describe('Queries of this function that run first.'),
  onContinuation: z.boolean().optional().describe('Re-run on each continuation page (default true).'),
});

export const guard = strict({
  function: z.string().describe('Function to run first.'),
  parameters: parameterValues.optional(),
  when: condition.optional(),
  onInitial: z.boolean().optional().describe('Run on the first call (default true).'),
  onContinuation: z.boolean().optional().describe('Run on continuation calls (default true).'),
  onRetry: z.boolean().optional().describe('Run on retries (default true).'),
  result: condition.optional().describe('Evaluated with @ctx.guard.output; falsy skips the main function.'),
  operations: operations.optional().describe('Run instead of the main function when the guard fails.'),
});

export const continuation = strict({
  when: condition.describe("Evaluated against each page's output; the call repeats while it is truthy."),
  url: z
    .string()
    .optional()
    .describe('Address of the next call, usually an expression reading the next link.'),
  parameters: parameters
    .optional()
    .describe(
      'Replace the original parameters entirely (repeat credentials); expressions see the previous call.',
    ),
});

export const functionDefinition = strict({
  provider: z.literal(REST_PROVIDER).describe('Selects the REST provider.'),
  method: z.enum(METHODS).describe('HTTP method of the outbound call.'),
  url: z.string().min(1).describe('Address of the remote service, with {name} path placeholders.'),
  parameters: parameters.optional(),
  format: z.enum(FORMATS).default('json').describe('Format of the response data.'),
  inputTransform: jsonata.optional().describe('Builds the JSON request body from the parameters ($).'),
  outputTransform: jsonata.optional().describe('Reshapes the parsed response body ($) into JSON.'),
  output: z
    .unknown()
    .optional()
    .describe('What is returned to the caller; default the outputTransform result, else the full response.'),
  records: jsonata
    .optional()
    .describe('Picks the rows out of the output (default: the output if an array, else it as one row).'),
  functionId: z.string().optional().describe("Overrides the function's name (2-50 chars)."),
  disableTokenRefresh: z.boolean().optional().describe('Disable the automatic token refresh on 401.'),
  keepTempIds: z.boolean().optional().describe('Keep rows with temporary ids on sync.'),
  useLocalCall: z.boolean().optional().describe('The device calls the remote service directly (OAuth only).'),
  when: condition.optional().describe('The function runs only when this holds (based on local state).'),
  error: errorHandlers.optional(),
  errorTransform: jsonata.optional().describe('Deprecated: use `error`.'),
  forRowsInRange: scopeInRange.optional(),
  forRowsWithValues: scopeWithValues.optional(),
  forRowsWithMatchingIds: z
    .boolean()
    .optional()
    .describe('Only rows with matching ids are affected; none deleted.'),
  operations: operations.optional(),
  queries: z
    .record(z.string(), query)
    .optional()
    .describe('Named queries over local data: @ctx.queries.<name>.'),
  guard: guard.optional(),
  continuation: continuation.optional(),
  conversions: conversions.optional(),
});

export type FunctionDefinition = z.output<typeof functionDefinition>;
export type ParameterDefinition = NonNullable<FunctionDefinition['parameters']>[string];
export type ErrorHandler = NonNullable<FunctionDefinition['error']>[number];
export type Operation = NonNullable<FunctionDefinition['operations']>[number];
export type Query = NonNullable<FunctionDefinition['queries']>[string];
export type Guard = NonNullable<FunctionDefinition['guard']>;
export type Continuation = NonNullable<FunctionDefinition['continuation']>;
