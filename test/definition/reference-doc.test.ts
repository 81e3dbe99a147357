import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceDoc } from '../../src/definition/reference-doc.js';
import { RULES } from '../../src/definition/rule-codes.js';

test('docs/reference.md is up to date with the schema (run `npm run docs` after changing it)', () => {
  const committed = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'reference.md'), 'utf8');
  expect(committed).toBe(referenceDoc());
});

test('the reference lists every rule code and the nested keys', () => {
  const doc = referenceDoc();
  for (const code of Object.keys(RULES)) expect(doc).toContain(`| \`${code}\` |`);
  expect(doc).toContain('| `parameters.<name>.location` |');
  expect(doc).toContain('| `(operation.execute-sql).statements[].statement` |');
  expect(doc).toContain('| `error[].alert.presentAs` | `toast`, `modal` |');
  expect(doc).toContain('| `guard.operations` | list of operation |');
});
