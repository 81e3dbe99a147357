import * as z from 'zod';
import { condition, expression, jsonata, strict } from './common.js';

export const CONVERSION_FORMATS = ['base64', 'data-uri', 'buffer', 'local-uri'] as const;

export const conversion = strict({
  property: z.string().describe('Property (dot path) of the body or output to convert.'),
  from: z.enum(CONVERSION_FORMATS),
  to: z.enum(CONVERSION_FORMATS),
  convertHeicToJpg: z.boolean().optional().describe('Convert HEIC images to JPEG on the way.'),
});

export const conversions = z
  .union([z.array(conversion), expression])
  .describe('File-format conversions, or one expression giving such a list.');

/** A scope value: a parameter's name, an expression ("=..."), or a literal. */
export const scopeValue = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .describe(
    'The name of a parameter (its value is used), an expression ("=..."), or a literal value (text, number, boolean, null).',
  );

export const scopeWithValues = z
  .record(z.string(), scopeValue)
  .describe(
    'Map of column (a property of the record) to the value that selects rows: a parameter name, an expression, or a literal.',
  );

export const scopeInRange = z
  .record(z.string(), strict({ from: scopeValue, to: scopeValue }))
  .describe(
    'Map of column to { from, to } (each a parameter name, expression or literal); rows with the column in [from, to] are in scope.',
  );

const common = {
  when: condition.optional().describe('The operation runs only when this holds.'),
  table: z.string().optional().describe('Target table (string or expression); defaults to the entity.'),
  records: jsonata
    .optional()
    .describe('Expression building the records to write; defaults to the output records.'),
  primaryKey: z
    .string()
    .optional()
    .describe('Expression over @ctx.record giving the row id; defaults to the record id.'),
  conversions: conversions.optional(),
  timeStamp: z
    .string()
    .optional()
    .describe(
      "A column (a property of each written record) set to the time of the write, ISO 8601 in UTC (text or expression giving the column's name).",
    ),
};

/** Operations that write records may delete the rows in their scope first (on the first page). */
const scoped = {
  forRowsWithValues: scopeWithValues.optional(),
  forRowsInRange: scopeInRange.optional(),
};

export const OPERATION_TYPES = [
  'operation.upsert-merge',
  'operation.upsert-replace',
  'operation.delete-insert',
  'operation.execute-sql',
  'operation.find-replace',
] as const;

export const operation = z
  .discriminatedUnion('type', [
    strict({ type: z.literal('operation.upsert-merge'), ...common, ...scoped }).describe(
      'Match on id; merge top-level properties into the existing record (after deleting the rows in scope, when a scope is given).',
    ),
    strict({ type: z.literal('operation.upsert-replace'), ...common, ...scoped }).describe(
      'Match on id; replace the whole record (after deleting the rows in scope, when a scope is given).',
    ),
    strict({ type: z.literal('operation.delete-insert'), ...common, ...scoped }).describe(
      'Delete the rows in scope (the whole table when no scope is given), then insert.',
    ),
    strict({
      type: z.literal('operation.execute-sql'),
      when: common.when,
      statements: z
        .array(
          strict({
            statement: z.string().describe('SQLite SQL; tables written [name]; @name binds a parameter.'),
            parameters: z
              .union([z.array(z.unknown()), z.record(z.string(), z.unknown())])
              .optional()
              .describe('Bound values (list for ?, map for @name), each a value or expression.'),
          }),
        )
        .min(1),
      tables: z.array(z.string()).optional().describe('Tables the statements touch.'),
    }).describe('Run parameterised SQL statements.'),
    strict({
      type: z.literal('operation.find-replace'),
      when: common.when,
      find: z.string().describe('Text to find (value or expression), for example a temporary id.'),
      replace: z.string().describe('Replacement (value or expression).'),
      tables: z.array(z.string()).optional().describe('Tables to search; defaults to the entity.'),
      includeCommandQueue: z.boolean().optional().describe('Also replace inside queued commands.'),
    }).describe('Replace a string in ids and data.'),
  ])
  .meta({ id: 'operation' }); // one definition in the JSON Schema, referenced from every list of operations

export const operations = z
  .array(operation)
  .describe('Table operations on the local SQLite database, run in order.');

export type ScopeValue = z.output<typeof scopeValue>;
