import * as z from 'zod';
import { type FileKind, SCHEMAS } from './schema/index.js';

const TITLES: Record<FileKind, string> = {
  function: 'restfn function definition (functions/**/*.platform)',
  datasource: 'restfn local datasource (datasources/**/*.platform)',
  action: 'restfn action (actions/**/*.platform)',
  solution: 'restfn solution settings (solution.yaml)',
};

/** The JSON Schema editors use (draft-07: the YAML language server's best-supported draft). */
export function jsonSchema(kind: FileKind): Record<string, unknown> {
  const schema = z.toJSONSchema(SCHEMAS[kind], { target: 'draft-7', io: 'input', unrepresentable: 'any' });
  return { ...schema, title: TITLES[kind] };
}
