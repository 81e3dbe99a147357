import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { jsonSchema } from '../../src/definition/json-schema.js';
import { FILE_KINDS } from '../../src/definition/schema/index.js';
import { EXAMPLES, FIXTURES } from '../helpers/temp-solution.js';

/** The editor schema is derived from the same zod schema; an independent validator must agree with it. */
describe('JSON Schema for editors', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = Object.fromEntries(FILE_KINDS.map((k) => [k, ajv.compile(jsonSchema(k))]));

  test('is draft-07 with a title, for each kind', () => {
    for (const kind of FILE_KINDS) {
      const schema = jsonSchema(kind);
      expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(schema.title).toContain(kind);
    }
  });

  test('accepts every valid function fixture', () => {
    const dir = join(FIXTURES, 'valid-functions');
    for (const name of readdirSync(dir)) {
      const ok = validate.function!(parse(readFileSync(join(dir, name), 'utf8')));
      expect(ok, `${name}: ${JSON.stringify(validate.function!.errors)}`).toBe(true);
    }
  });

  test('accepts the example datasource, action and solution', () => {
    const demo = join(EXAMPLES, 'demo');
    expect(
      validate.datasource!(parse(readFileSync(join(demo, 'datasources/customers.platform'), 'utf8'))),
    ).toBe(true);
    expect(
      validate.action!(parse(readFileSync(join(demo, 'actions/update-customer.platform'), 'utf8'))),
    ).toBe(true);
    expect(validate.solution!(parse(readFileSync(join(demo, 'solution.yaml'), 'utf8')))).toBe(true);
  });

  test('rejects unknown keys, wrong enums and unknown operation types', () => {
    const base = { provider: 'DATA_PROVIDER_REST', method: 'GET', url: 'http://x' };
    expect(validate.function!(base)).toBe(true);
    expect(validate.function!({ ...base, mehtod: 'GET' })).toBe(false);
    expect(validate.function!({ ...base, method: 'get' })).toBe(false);
    expect(validate.function!({ ...base, operations: [{ type: 'operation.nope' }] })).toBe(false);
    expect(validate.function!({ ...base, parameters: { a: { location: 'header', extra: 1 } } })).toBe(false);
  });

  test('carries descriptions for editor hovers', () => {
    const schema = jsonSchema('function') as { properties: Record<string, { description?: string }> };
    expect(schema.properties.method?.description).toBe('HTTP method of the outbound call.');
  });
});
