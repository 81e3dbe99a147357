import { describe, expect, it } from 'vitest';
import { loadSolution } from '../../src/definition/solution.js';
import { solutionFromFiles } from '../../src/definition/solution-from-files.js';
import { tempSolution } from '../helpers/temp-solution.js';

const FILES = {
  'solution.yaml': 'name: crm\n',
  'functions/b/get-b.platform': 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://example.com/b\n',
  'functions/get-a.platform':
    'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://example.com/a\nfunctionId: alpha\n',
  'datasources/items.platform':
    'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: items\n      function: alpha\n  query: SELECT id, data FROM [items]\n',
  'scripts/expressions/text.js': 'export function up(s) { return s.toUpperCase(); }\n',
  'README.md': 'not a definition',
};

describe('solutionFromFiles', () => {
  it('builds from texts what loadSolution reads from the same files on disk: names, order, definitions, scripts', () => {
    const fromTexts = solutionFromFiles('crm', FILES, 'crm@3');
    const fromDisk = loadSolution(tempSolution(FILES));
    expect(fromTexts.name).toBe('crm');
    expect(fromTexts.files.map((f) => [f.kind, f.name])).toEqual(fromDisk.files.map((f) => [f.kind, f.name]));
    expect([...fromTexts.functions.keys()]).toEqual([...fromDisk.functions.keys()]);
    expect(fromTexts.files.map((f) => f.definition)).toEqual(fromDisk.files.map((f) => f.definition));
    expect(fromTexts.scripts.map((s) => [s.name, s.source])).toEqual(
      fromDisk.scripts.map((s) => [s.name, s.source]),
    );
    expect(fromTexts.diagnostics).toEqual([]);
  });

  it('a bad file is a finding that names it under the label, the rest still load', () => {
    const solution = solutionFromFiles('crm', { ...FILES, 'functions/bad.platform': 'method: [\n' }, 'crm@3');
    expect(solution.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['YAML_SYNTAX', 'crm@3/functions/bad.platform'],
    ]);
    expect(solution.functions.has('alpha')).toBe(true);
  });
});
