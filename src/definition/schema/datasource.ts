import * as z from 'zod';
import { expression, parameterValues, strict } from './common.js';
import { conversions } from './operation.js';

export const datasourceEntity = z.union([
  z.string().describe('A local table that is only read.'),
  strict({
    entity: z.string().describe('Local table name.'),
    function: z.string().optional().describe('Function run to populate the table.'),
    functionParameters: parameterValues.optional(),
  }),
]);

/** The providers a `datasource.sqlite` names (docs/decisions.md, issue 37: what each one means here). */
export const DATASOURCE_PROVIDERS = [
  'DATA_PROVIDER_LOCAL',
  'DATA_PROVIDER_REST',
  'DATA_PROVIDER_DYNAMIC',
] as const;

const sqliteDatasource = strict({
  type: z.literal('datasource.sqlite'),
  options: strict({
    provider: z
      .enum(DATASOURCE_PROVIDERS)
      .describe(
        '`DATA_PROVIDER_LOCAL` (and `DATA_PROVIDER_DYNAMIC`, which has no service of its own here): fill and read the local tables. `DATA_PROVIDER_REST`: call the functions and present their rows, writing no local table.',
      ),
    entities: z.array(datasourceEntity).min(1).describe('Tables, and the functions that fill them.'),
    query: z
      .string()
      .optional()
      .describe(
        "SQL over the tables; each row has `id` and a JSON `data` column. `'$.path'` is shorthand for `json_extract(data, '$.path')` (docs/cli.md).",
      ),
    queryParameters: parameterValues.optional().describe('Values bound to @name in the query.'),
    isDocument: z.boolean().optional().describe('The result is the first row as one object, or null.'),
    jsonProperties: z
      .array(z.string())
      .optional()
      .describe("Result columns whose JSON text is parsed into objects and arrays (`image` or `'$.image'`)."),
    noSync: z
      .boolean()
      .optional()
      .describe(
        "Run none of the entities' functions: the query reads the local tables as other syncs and actions left them.",
      ),
    rewriteQuery: z
      .boolean()
      .optional()
      .describe(
        "`false`: the query runs exactly as written (no `'$.path'` shorthand, no double-quote rewrite).",
      ),
    conversions: conversions.optional().describe('File-format conversions applied to each result row.'),
  }),
});

const staticDatasource = strict({
  type: z.literal('datasource.static'),
  options: strict({
    data: z
      .union([z.array(z.unknown()), expression])
      .describe('The rows, as written (or an expression giving them); no query runs on them.'),
  }),
});

export const datasourceDefinition = z.discriminatedUnion('type', [sqliteDatasource, staticDatasource]);

export type DatasourceDefinition = z.output<typeof datasourceDefinition>;
export type SqliteDatasource = z.output<typeof sqliteDatasource>;

/** The entities a datasource lists (a static one has none). */
export function entitiesOf(
  definition: DatasourceDefinition,
): ReadonlyArray<z.output<typeof datasourceEntity>> {
  return definition.type === 'datasource.sqlite' ? definition.options.entities : [];
}
