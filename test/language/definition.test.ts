import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { definition } from '../../src/language/definition.js';
import { references } from '../../src/language/references.js';
import { LanguageService } from '../../src/language/service.js';
import { NAVIGATION_SOLUTION as FILES, rangeOfWord, where } from '../helpers/navigation-solution.js';

// Go to definition and find references, on the service directly (test/helpers/navigation-solution.ts).
const ROOT = '/nowhere/tasks';
const at = (p: string) => join(ROOT, p);
const START = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

function service(files: Record<string, string> = FILES): LanguageService {
  return new LanguageService(ROOT, new Map(Object.entries(files).map(([p, t]) => [at(p), t])));
}

/** The position inside `word` (its second character) in a file of the solution. */
function inside(file: string, word: string, nth = 0) {
  const p = where(FILES[file]!, word, nth);
  return { line: p.line, character: p.character + 1 };
}

describe('go to definition', () => {
  test("a function's name in a datasource: the function file, at its first line", () => {
    const ds = 'datasources/open-tasks.platform';
    expect(definition(service(), at(ds), inside(ds, 'rest-get-tasks'))).toEqual([
      { path: at('functions/rest-get-tasks.platform'), range: START },
    ]);
  });

  test("a function named by its functionId: the file that declares it, at the functionId's value", () => {
    const ds = 'datasources/task-lists.platform';
    expect(definition(service(), at(ds), inside(ds, 'rest-get-task-lists'))).toEqual([
      {
        path: at('functions/lists.platform'),
        range: rangeOfWord(FILES['functions/lists.platform']!, 'rest-get-task-lists'),
      },
    ]);
  });

  test("a guard's function, an execute-action's action, a datasource read, a script call", () => {
    const s = service();
    expect(
      definition(s, at('functions/lists.platform'), inside('functions/lists.platform', 'rest-get-tasks')),
    ).toEqual([{ path: at('functions/rest-get-tasks.platform'), range: START }]);
    expect(
      definition(s, at('actions/refresh.platform'), inside('actions/refresh.platform', 'notify')),
    ).toEqual([{ path: at('actions/notify.platform'), range: START }]);
    const ds = 'datasources/open-tasks.platform';
    expect(definition(s, at(ds), inside(ds, 'task-lists.id'))).toEqual([
      { path: at('datasources/task-lists.platform'), range: START },
    ]);
    const script = FILES['scripts/expressions/format.js']!;
    expect(definition(s, at(ds), inside(ds, '$format.separator'))).toEqual([
      { path: at('scripts/expressions/format.js'), range: rangeOfWord(script, 'separator', 1) },
    ]);
  });

  test('positions are UTF-16: an emoji and an accent before the name on its line', () => {
    const ds = 'datasources/open-tasks.platform';
    const line = FILES[ds]!.split('\n')[7]!;
    // 🗂 is two UTF-16 units, one code point: a position counted in code points lands one off.
    expect(line).toContain('🗂 é');
    const p = where(FILES[ds]!, 'task-lists.id');
    expect(p.character).toBe(line.indexOf('task-lists'));
    const s = service();
    expect(definition(s, at(ds), p)[0]?.path).toBe(at('datasources/task-lists.platform'));
    // One before the name is the `.` before it: nothing is defined there.
    expect(definition(s, at(ds), { line: p.line, character: p.character - 1 })).toEqual([]);
  });

  test('a comment mentioning a function, and a name the solution lacks, go nowhere', () => {
    const fn = 'functions/rest-get-tasks.platform';
    expect(definition(service(), at(fn), inside(fn, 'rest-get-task-lists'))).toEqual([]);
    const typo = {
      ...FILES,
      'datasources/open-tasks.platform': FILES['datasources/open-tasks.platform']!.replace(
        'function: rest-get-tasks',
        'function: rest-get-taks',
      ),
    };
    const ds = 'datasources/open-tasks.platform';
    const p = where(typo[ds]!, 'rest-get-taks');
    expect(definition(service(typo), at(ds), p)).toEqual([]);
  });

  test('a file the schema rejects still goes from `function:` to the function (UTF-16 positions)', () => {
    const broken = `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - { entity: "🗂 tasks", function: rest-get-tasks }
  qeury: SELECT 1
`;
    const s = service({ ...FILES, 'datasources/open-tasks.platform': broken });
    const ds = at('datasources/open-tasks.platform');
    expect(s.source(ds)!.definition).toBeUndefined();
    const p = where(broken, 'rest-get-tasks');
    expect(definition(s, ds, p)[0]?.path).toBe(at('functions/rest-get-tasks.platform'));
    // Counted in code points, the emoji would be one character: one before the name (a space) would be on it.
    expect(definition(s, ds, { line: p.line, character: p.character - 1 })).toEqual([]);
  });
  test("a local table's name: the datasources' entries listing it", () => {
    const action = 'actions/refresh.platform';
    const ds = FILES['datasources/open-tasks.platform']!;
    expect(definition(service(), at(action), inside(action, 'tasks'))).toEqual([
      { path: at('datasources/open-tasks.platform'), range: rangeOfWord(ds, 'tasks') },
    ]);
  });
});

describe('find references', () => {
  test('from anywhere in a function file: every file naming it, by parsed YAML; the declaration first when asked', () => {
    const fn = 'functions/rest-get-tasks.platform';
    const found = references(service(), at(fn), where(FILES[fn]!, 'records'), true);
    expect(found).toEqual([
      { path: at(fn), range: START },
      {
        path: at('functions/lists.platform'),
        range: rangeOfWord(FILES['functions/lists.platform']!, 'rest-get-tasks'),
      },
      {
        path: at('datasources/open-tasks.platform'),
        range: rangeOfWord(FILES['datasources/open-tasks.platform']!, 'rest-get-tasks'),
      },
      {
        path: at('actions/refresh.platform'),
        range: rangeOfWord(FILES['actions/refresh.platform']!, 'rest-get-tasks'),
      },
    ]);
    expect(references(service(), at(fn), where(FILES[fn]!, 'records'), false)).toEqual(found.slice(1));
  });

  test("a comment naming a function is no reference; a functionId's function is found by its name", () => {
    const fn = 'functions/lists.platform';
    const found = references(service(), at(fn), where(FILES[fn]!, 'provider'), false);
    // rest-get-tasks.platform mentions rest-get-task-lists in a comment only.
    expect(found).toEqual([
      {
        path: at('datasources/task-lists.platform'),
        range: rangeOfWord(FILES['datasources/task-lists.platform']!, 'rest-get-task-lists'),
      },
    ]);
  });

  test('of a name under the cursor: an action, a datasource, a script function (from its declaration)', () => {
    const s = service();
    expect(
      references(s, at('actions/refresh.platform'), inside('actions/refresh.platform', 'notify'), true),
    ).toEqual([
      { path: at('actions/notify.platform'), range: START },
      {
        path: at('actions/refresh.platform'),
        range: rangeOfWord(FILES['actions/refresh.platform']!, 'notify'),
      },
    ]);
    expect(references(s, at('datasources/task-lists.platform'), { line: 0, character: 0 }, false)).toEqual([
      {
        path: at('datasources/open-tasks.platform'),
        range: rangeOfWord(FILES['datasources/open-tasks.platform']!, 'task-lists'),
      },
    ]);
    const script = 'scripts/expressions/format.js';
    expect(references(s, at(script), inside(script, 'separator', 1), false)).toEqual([
      {
        path: at('datasources/open-tasks.platform'),
        range: rangeOfWord(FILES['datasources/open-tasks.platform']!, '$format.separator'),
      },
      {
        path: at('actions/notify.platform'),
        range: rangeOfWord(FILES['actions/notify.platform']!, '$format.separator'),
      },
    ]);
  });

  test('an edit is seen at once: a renamed reference is no longer found', () => {
    const s = service();
    const ds = at('datasources/open-tasks.platform');
    s.setText(
      ds,
      FILES['datasources/open-tasks.platform']!.replace(
        'function: rest-get-tasks',
        'function: rest-get-task-lists',
      ),
    );
    const fn = at('functions/rest-get-tasks.platform');
    expect(references(s, fn, { line: 1, character: 0 }, false).map((l) => l.path)).toEqual([
      at('functions/lists.platform'),
      at('actions/refresh.platform'),
    ]);
  });

  test("a local table's references: the datasource listing it (its declaration), an action's sync, a function's operation", () => {
    const fn = 'functions/rest-get-tasks.platform';
    const p = where(FILES[fn]!, 'table: tasks');
    const onTable = { line: p.line, character: p.character + 'table: t'.length };
    const text = (f: string) => FILES[f]!;
    const operation = {
      path: at(fn),
      range: {
        start: { line: p.line, character: p.character + 7 },
        end: { line: p.line, character: p.character + 12 },
      },
    };
    const listed = {
      path: at('datasources/open-tasks.platform'),
      range: rangeOfWord(text('datasources/open-tasks.platform'), 'tasks'),
    };
    const synced = {
      path: at('actions/refresh.platform'),
      range: rangeOfWord(text('actions/refresh.platform'), 'tasks'),
    };
    expect(references(service(), at(fn), onTable, true)).toEqual([operation, listed, synced]);
    expect(references(service(), at(fn), onTable, false)).toEqual([operation, synced]);
  });
});
