import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { ERROR_CODES, type ErrorCode, exitCodeOf, FAMILIES } from '../../src/errors/codes.js';
import { RestfnError } from '../../src/errors/restfn-error.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const sources = readdirSync(SRC, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts'))
  .map((e) => ({ file: join(e.parentPath, e.name), text: readFileSync(join(e.parentPath, e.name), 'utf8') }));

/** Codes handed to an error's constructor as a literal: first argument, or UsageError's second. */
function thrownCodes(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const add = (code: string, file: string) => found.set(code, [...(found.get(code) ?? []), file]);
  for (const { file, text } of sources) {
    for (const m of text.matchAll(/(?:new \w*Error\(|super\()\s*'([A-Z][A-Z0-9_]+)'/g)) add(m[1]!, file);
    for (const m of text.matchAll(/new UsageError\(\s*(?:[^;]*?),\s*'([A-Z][A-Z0-9_]+)',?\s*\)/gs))
      add(m[1]!, file);
    // Codes recorded without a throw (events, the command queue's errors).
    for (const m of text.matchAll(/code \?\? '([A-Z][A-Z0-9_]+)'/g)) add(m[1]!, file);
  }
  return found;
}

describe('the error code registry', () => {
  test('every code src/ hands to an error is registered', () => {
    const codes = thrownCodes();
    // The scan sees the codes: a regex that matched nothing would pass for the wrong reason.
    expect(codes.size).toBeGreaterThan(40);
    const unregistered = [...codes.keys()].filter((c) => !Object.hasOwn(ERROR_CODES, c));
    expect(unregistered).toEqual([]);
  });

  test('every registered code is raised somewhere (no stale entries)', () => {
    const all = sources.map((s) => s.text).join('\n');
    const unused = Object.keys(ERROR_CODES).filter(
      (c) => !sources.some((s) => !s.file.endsWith('codes.ts') && s.text.includes(`'${c}'`)),
    );
    expect(all.length).toBeGreaterThan(0);
    expect(unused).toEqual([]);
  });

  test('every registered code is documented in docs/reference.md with its family and exit code', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'reference.md'), 'utf8');
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(doc).toContain(`| \`${code}\` | ${entry.family} | ${exitCodeOf(code as ErrorCode)} |`);
    }
  });

  test("a code's exit code is its family's, and the families match the documented exit table", () => {
    expect(FAMILIES.usage.exit).toBe(EXIT.USAGE);
    expect(FAMILIES.definition.exit).toBe(EXIT.INVALID_DEFINITION);
    expect(FAMILIES.credentials.exit).toBe(EXIT.CREDENTIALS);
    expect(FAMILIES.call.exit).toBe(EXIT.FUNCTION_FAILED);
    expect(FAMILIES.data.exit).toBe(EXIT.FUNCTION_FAILED);
    expect(FAMILIES.interrupted.exit).toBe(EXIT.INTERRUPTED);
    expect(FAMILIES.internal.exit).toBe(EXIT.INTERNAL);
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      expect(exitCodeFor(new RestfnError(code, 'x'))).toBe(FAMILIES[ERROR_CODES[code].family].exit);
    }
  });

  test('the codes that used to collide now name one failure each', () => {
    // A caller's `..` and a definition's bad address; SQL typed by a user and a definition's SQL.
    expect(ERROR_CODES.INVALID_URL_VALUE.family).toBe('usage');
    expect(ERROR_CODES.INVALID_URL.family).toBe('definition');
    expect(ERROR_CODES.QUERY_INVALID.family).toBe('usage');
    expect(ERROR_CODES.QUERY_FAILED.family).toBe('definition');
    // A query cycle found at run time is the definition's fault (exit 3), as validation says.
    expect(exitCodeOf('QUERY_CYCLE')).toBe(EXIT.INVALID_DEFINITION);
    // CONVERSION_INPUT comes from one class only.
    const conversionInput = thrownCodes().get('CONVERSION_INPUT') ?? [];
    const classes = sources
      .filter((s) => conversionInput.includes(s.file))
      .flatMap((s) => [...s.text.matchAll(/new (\w*Error)\(\s*'CONVERSION_INPUT'/g)].map((m) => m[1]));
    expect(new Set(classes)).toEqual(new Set(['ConversionError']));
  });
});
