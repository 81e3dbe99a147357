import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { validateSolution } from '../../src/definition/validate.js';
import { LanguageService } from '../../src/language/service.js';
import { DATASOURCE, FUNCTION } from '../helpers/language-solution.js';
import { tempSolution } from '../helpers/temp-solution.js';

// The language service is pure: texts in, findings out. Its findings must be `restfn validate`'s.
const ROOT = '/nowhere/shop';
const at = (p: string) => join(ROOT, p);

function service(files: Record<string, string>): LanguageService {
  return new LanguageService(ROOT, new Map(Object.entries(files).map(([p, t]) => [at(p), t])));
}

describe('language service', () => {
  test('a datasource naming a missing function: the finding validate reports, at the same place', async () => {
    const files = {
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-cusomers'),
    };
    const found = await service(files).diagnostics([at('datasources/customers.platform')]);
    const dir = tempSolution(files);
    const expected = await validateSolution(loadSolution(dir, { displayBase: dir }));
    expect(found.get(at('datasources/customers.platform'))).toEqual(expected.diagnostics);
    expect(expected.diagnostics.map((d) => [d.code, d.line, d.col])).toEqual([['UNKNOWN_FUNCTION', 6, 17]]);
  });

  test('renaming a function file re-checks and flags the datasource naming it', async () => {
    const s = service({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-customers'),
      'actions/unrelated.platform': 'action:\n  type: action.go-back\n',
    });
    const ds = at('datasources/customers.platform');
    expect((await s.diagnostics([ds])).get(ds)).toEqual([]);
    const removed = s.remove(at('functions/rest-get-customers.platform'));
    const added = s.setText(at('functions/rest-list-customers.platform'), FUNCTION);
    // The datasource names the old name: it is a dependant of the removal, not of the unrelated action.
    expect([...removed]).toEqual([ds]);
    expect(added.has(ds)).toBe(false);
    const after = (await s.diagnostics(removed)).get(ds)!;
    expect(after.map((d) => d.code)).toEqual(['UNKNOWN_FUNCTION']);
    expect(after[0]!.message).toContain("did you mean 'rest-list-customers'");
  });

  test('an edit of one file re-checks it and its dependants only', () => {
    const s = service({
      'functions/a.platform': FUNCTION,
      'functions/b.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('a'),
    });
    const affected = s.setText(at('functions/b.platform'), `${FUNCTION}# changed\n`);
    expect([...affected]).toEqual([at('functions/b.platform')]);
    expect(s.setText(at('notes/readme.platform'), 'x')).toEqual(new Set());
  });

  test("validateSolution's check runs the rules over the named files only", async () => {
    const dir = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/a.platform': DATASOURCE('rest-get-x'),
      'datasources/b.platform': DATASOURCE('rest-get-y'),
    });
    const solution = loadSolution(dir, { displayBase: dir });
    const both = new Set(['datasources/a.platform', 'datasources/b.platform']);
    const all = await validateSolution(solution, { only: both });
    expect(all.diagnostics.map((d) => d.file)).toEqual([...both]);
    const one = await validateSolution(solution, { only: both, check: new Set(['datasources/a.platform']) });
    expect(one.diagnostics.map((d) => d.file)).toEqual(['datasources/a.platform']);
  });

  test('completion after function: lists the functions; at a key, the schema keys with their docs', () => {
    const s = service({
      'functions/rest-get-customers.platform': FUNCTION,
      'functions/rest-get-orders.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-c'),
    });
    const names = s.completions(at('datasources/customers.platform'), 5, '      function: rest-get-c'.length);
    expect(names.map((c) => c.label)).toEqual(['rest-get-customers', 'rest-get-orders']);
    expect(names[0]!.detail).toBe('GET https://api.example.com/customers');
    const keys = s.completions(at('functions/rest-get-customers.platform'), 4, 0);
    // The keys already written (method, url, ...) are not offered again.
    expect(keys.map((c) => c.label)).toEqual(
      expect.arrayContaining(['parameters', 'format', 'inputTransform']),
    );
    expect(keys.map((c) => c.label)).not.toContain('method');
    const nested = s.completions(at('datasources/customers.platform'), 2, 2);
    expect(nested.map((c) => c.label)).toEqual(expect.arrayContaining(['queryParameters', 'isDocument']));
    expect(nested.map((c) => c.label)).not.toContain('provider');
    expect(nested.map((c) => c.label)).not.toContain('type');
  });
});
