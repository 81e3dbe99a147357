import * as z from 'zod';
import { parameterValues, strict } from './common.js';

export const datasourceEntity = z.union([
  z.string().describe('A local table that is only read.'),
  strict({
    entity: z.string().describe('Local table name.'),
    function: z.string().optional().describe('Function run to populate the table.'),
    functionParameters: parameterValues.optional(),
  }),
]);

export const datasourceDefinition = strict({
  type: z.literal('datasource.sqlite'),
  options: strict({
    provider: z.literal('DATA_PROVIDER_LOCAL').describe('Read the local tables.'),
    entities: z.array(datasourceEntity).min(1).describe('Tables, and the functions that fill them.'),
    query: z
      .string()
      .optional()
      .describe('SQL over the local tables; each row has `id` and a JSON `data` column.'),
    queryParameters: parameterValues.optional().describe('Values bound to @name in the query.'),
  }),
});

export type DatasourceDefinition = z.output<typeof datasourceDefinition>;
