import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RULES } from '../../src/definition/rule-codes.js';
import { definitionFiles, loadSolution } from '../../src/definition/solution.js';
import { validateSolution } from '../../src/definition/validate.js';
import { EXAMPLES, FIXTURES, tempSolution } from '../helpers/temp-solution.js';

/**
 * Fixtures are named by expected outcome and carry their expected findings as comments:
 * `# expect: CODE line:col`. A fixture passes when validation reports exactly those, no more.
 * `# expect: CODE line:col path` puts the finding in another file of the solution (one that holds
 * no text to comment in, such as a symbolic link that loops).
 */
type Finding = `${string} ${string} ${number}:${number}`;

function expectedFindings(root: string): Finding[] {
  const scripts = join(root, 'scripts', 'expressions');
  const files = [
    join(root, 'solution.yaml'),
    ...['functions', 'datasources', 'actions'].flatMap((d) => definitionFiles(join(root, d))),
    ...(existsSync(scripts) ? readdirSync(scripts).map((f) => join(scripts, f)) : []),
  ];
  return files.flatMap((path) => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return [];
    }
    return [...text.matchAll(/^(?:#|\/\/) expect: (\w+) (\d+):(\d+)(?: (\S+))?$/gm)].map(
      (m) => `${m[4] ?? relative(root, path)} ${m[1]} ${Number(m[2])}:${Number(m[3])}` as Finding,
    );
  });
}

async function actualFindings(root: string): Promise<Finding[]> {
  const result = await validateSolution(loadSolution(root, { displayBase: root }));
  return result.diagnostics.map((d) => `${d.file} ${d.code} ${d.line}:${d.col}` as Finding);
}

describe('invalid function files report exactly their expected findings', () => {
  const dir = join(FIXTURES, 'invalid-functions');
  test.each(readdirSync(dir))('%s', async (name) => {
    const root = tempSolution({ [`functions/${name}`]: readFileSync(join(dir, name), 'utf8') });
    const expected = expectedFindings(root);
    expect(expected.length).toBeGreaterThan(0);
    expect((await actualFindings(root)).sort()).toEqual(expected.sort());
  });
});

describe('solution fixtures report exactly their expected findings', () => {
  const dir = join(FIXTURES, 'solutions');
  test.each(readdirSync(dir))('%s', async (name) => {
    const root = join(dir, name);
    expect((await actualFindings(root)).sort()).toEqual(expectedFindings(root).sort());
  });
});

describe('valid definitions have no findings', () => {
  test('every valid function fixture, validated together (one guards another)', async () => {
    const dir = join(FIXTURES, 'valid-functions');
    const files = Object.fromEntries(
      readdirSync(dir).map((n) => [`functions/${n}`, readFileSync(join(dir, n), 'utf8')]),
    );
    const root = tempSolution(files);
    const solution = loadSolution(root, { displayBase: root });
    expect(solution.functions.size).toBe(Object.keys(files).length);
    expect(await actualFindings(root)).toEqual([]);
  });

  test('the example solution', async () => {
    const root = join(EXAMPLES, 'demo');
    const solution = loadSolution(root);
    expect(solution.files.map((f) => f.kind).sort()).toEqual([
      'action',
      'datasource',
      'function',
      'function',
      'function',
      'function',
    ]);
    expect(await actualFindings(root)).toEqual([]);
  });
});

test('every rule code is exercised by at least one fixture', () => {
  const text = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'));
  const all = [...text(join(FIXTURES, 'invalid-functions')), ...text(join(FIXTURES, 'solutions'))].join('\n');
  // Reported by the platform's publish only (its ceilings), tested in test/platform/isolation.test.ts.
  const platformOnly = new Set(['SETTING_CAPPED']);
  const missing = Object.keys(RULES).filter(
    (code) => !platformOnly.has(code) && !all.includes(` expect: ${code} `),
  );
  expect(missing).toEqual([]);
});
