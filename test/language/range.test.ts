import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { diagnosticRange } from '../../src/language/range.js';
import { LanguageService } from '../../src/language/service.js';
import { FUNCTION } from '../helpers/language-solution.js';

// What an editor underlines for a finding: the misspelt word of a did-you-mean, else the word at
// the finding's place.
const ROOT = '/nowhere/shop';
const FN = join(ROOT, 'functions', 'rest-get-customers.platform');

async function underlined(text: string): Promise<Array<[string, string]>> {
  const s = new LanguageService(ROOT, new Map([[FN, text]]));
  const found = (await s.diagnostics([FN])).get(FN) ?? [];
  return found.map((d) => {
    const r = diagnosticRange(d, text);
    const line = text.split('\n')[r.start.line]!;
    return [d.code, line.slice(r.start.character, r.end.character)];
  });
}

describe('diagnosticRange', () => {
  test('a misspelt function inside an expression: only its name, not the whole expression', async () => {
    const text = `${FUNCTION}parameters:\n  q:\n    location: query\n    type: string\n    value: =$uppercse(@ctx.user.email)\n`;
    const found = await underlined(text);
    expect(found).toHaveLength(1);
    expect(found).toEqual([['UNKNOWN_NAME', 'uppercse']]);
  });

  test('a repeated transform key is a YAML error that does not advise quoting', async () => {
    const text = `${FUNCTION}outputTransform: =$merge([$, { "a": 1 }])\n`;
    const s = new LanguageService(ROOT, new Map([[FN, text]]));
    const [finding] = (await s.diagnostics([FN])).get(FN) ?? [];
    expect(finding?.code).toBe('YAML_SYNTAX');
    expect(finding?.message).toContain('Map keys must be unique');
    expect(finding?.message).not.toContain('quote it');
  });

  test('a misspelt key: the key', async () => {
    expect(await underlined(FUNCTION.replace('outputTransform', 'outputTransfrom'))).toEqual([
      [expect.any(String), 'outputTransfrom'],
    ]);
  });
});
