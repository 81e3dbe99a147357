import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { prepareSolution, revivePrepared } from '../../src/definition/prepared-solution.js';
import { loadSolution } from '../../src/definition/solution.js';
import { validateSolution } from '../../src/definition/validate.js';
import { RESTFN_VERSION } from '../../src/version.js';

const SOLUTIONS = join(import.meta.dirname, '..', 'fixtures', 'solutions');
const fixtures = readdirSync(SOLUTIONS).sort();

/** What a solution is, as plain data: what the runtime and the rules read of it. */
function shape(solution: ReturnType<typeof loadSolution>) {
  const file = (f: (typeof solution.files)[number] | NonNullable<typeof solution.settings>) => ({
    kind: f.kind,
    name: f.name,
    path: f.path,
    file: f.yaml.file,
    text: f.yaml.text,
    data: f.data,
    definition: f.definition,
  });
  return {
    root: solution.root,
    name: solution.name,
    settings: solution.settings ? file(solution.settings) : undefined,
    files: solution.files.map(file),
    functions: [...solution.functions].map(([name, f]) => [name, f.path]),
    scripts: solution.scripts,
    diagnostics: solution.diagnostics,
  };
}

describe('prepared solutions', () => {
  it.each(fixtures)(
    '%s: revived from its prepared text, the solution is the one loaded from its files',
    async (name) => {
      const loaded = loadSolution(join(SOLUTIONS, name));
      const revived = revivePrepared(prepareSolution(loaded));
      expect(revived).toBeDefined();
      expect(shape(revived!)).toEqual(shape(loaded));
      // The rules find the same, at the same file:line:col (the revived files parse their YAML only now).
      const [a, b] = await Promise.all([validateSolution(loaded), validateSolution(revived!)]);
      expect(b.diagnostics).toEqual(a.diagnostics);
    },
  );

  it('a text another restfn prepared, or a damaged one, is not used', () => {
    const text = prepareSolution(loadSolution(join(SOLUTIONS, fixtures[0]!)));
    expect(
      revivePrepared(text.replace(`restfn ${RESTFN_VERSION} prepared`, 'restfn 0.0.0 prepared')),
    ).toBeUndefined();
    expect(revivePrepared(text.slice(0, 100))).toBeUndefined();
    expect(revivePrepared('null')).toBeUndefined();
  });

  it('is stamped with the package version', () => {
    expect(RESTFN_VERSION).toBe(packageJson.version);
  });
});
