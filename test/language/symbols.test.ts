import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LanguageService } from '../../src/language/service.js';
import { documentSymbols, type OutlineSymbol } from '../../src/language/symbols.js';
import { NAVIGATION_SOLUTION as FILES, rangeOfWord, where } from '../helpers/navigation-solution.js';

// Document symbols (the outline) of each kind of file, on the service's parsed files.
const ROOT = '/nowhere/tasks';
const at = (p: string) => join(ROOT, p);
const s = new LanguageService(ROOT, new Map(Object.entries(FILES).map(([p, t]) => [at(p), t])));

/** Names and details, nested as the outline nests them. */
function tree(symbols: OutlineSymbol[]): unknown[] {
  return symbols.map((x) => {
    const label = x.detail ? `${x.name} (${x.detail})` : x.name;
    return x.children.length > 0 ? { [label]: tree(x.children) } : label;
  });
}

describe('document symbols', () => {
  test('a function: its call (method and masked url), parameters, transforms, handlers, operations', () => {
    const fn = 'functions/rest-get-tasks.platform';
    const outline = documentSymbols(s.source(at(fn))!);
    expect(tree(outline)).toEqual([
      'provider (DATA_PROVIDER_REST)',
      'GET https://api.example.com/tasks?api_key=***&view=full',
      { parameters: ['lists (string, query, required)', 'pageSize (int, query)'] },
      'records (=$.value)',
      'outputTransform ($.items)',
      { error: ['No tasks (=@ctx.response.status = 404)'] },
      { operations: ['operation.upsert-merge (tasks)'] },
    ]);
    expect(outline.map((x) => x.kind)).toEqual([
      'property',
      'method',
      'namespace',
      'function',
      'function',
      'array',
      'array',
    ]);
  });

  test("ranges: the node's (key to the end of its value, not the next line), selecting its key", () => {
    const text = FILES['functions/rest-get-tasks.platform']!;
    const outline = documentSymbols(s.source(at('functions/rest-get-tasks.platform'))!);
    const parameters = outline[2]!;
    expect(parameters.range).toEqual({ start: where(text, 'parameters:'), end: { line: 12, character: 13 } });
    expect(text.split('\n')[12]).toBe('    value: 50');
    expect(parameters.selectionRange).toEqual(rangeOfWord(text, 'parameters'));
    const lists = parameters.children[0]!;
    expect(lists.range).toEqual({ start: where(text, 'lists:'), end: { line: 8, character: 18 } });
    expect(lists.selectionRange).toEqual(rangeOfWord(text, 'lists:'.slice(0, 5), 2));
    // A list's entry spans the entry, and selects the key naming it.
    const handler = outline[5]!.children[0]!;
    expect(handler.range).toEqual({
      start: where(text, 'when: =@ctx.response'),
      end: { line: 17, character: 19 },
    });
    expect(handler.selectionRange).toEqual(rangeOfWord(text, 'title'));
    // Every child lies inside its parent, every selection inside its symbol.
    const notAfter = (a: { line: number; character: number }, b: { line: number; character: number }) =>
      a.line < b.line || (a.line === b.line && a.character <= b.character);
    const inside = (outer: OutlineSymbol, inner: OutlineSymbol['range']) =>
      notAfter(outer.range.start, inner.start) && notAfter(inner.end, outer.range.end);
    const check = (x: OutlineSymbol) => {
      expect(inside(x, x.selectionRange)).toBe(true);
      for (const c of x.children) {
        expect(inside(x, c.range)).toBe(true);
        check(c);
      }
    };
    outline.forEach(check);
  });

  test('a datasource: its entities (with the functions filling them) and query', () => {
    const text = FILES['datasources/open-tasks.platform']!;
    const outline = documentSymbols(s.source(at('datasources/open-tasks.platform'))!);
    expect(tree(outline)).toEqual([
      'type (datasource.sqlite)',
      {
        options: [
          'provider (DATA_PROVIDER_LOCAL)',
          { entities: ['tasks (rest-get-tasks)'] },
          "query (SELECT id, '$.title' FROM [tasks])",
        ],
      },
    ]);
    const entity = (outline[1]!.children[1]!.children[0] as OutlineSymbol)!;
    expect(entity.selectionRange).toEqual(rangeOfWord(text, 'tasks', 0));
  });

  test("an action: its steps nested as they run, and what each names; a global action's parameters", () => {
    expect(tree(documentSymbols(s.source(at('actions/refresh.platform'))!))).toEqual([
      {
        'action.action-list': ['action.sync-entities', 'action.execute-action (notify)'],
      },
    ]);
    const withFollowUp = `action:
  type: action.execute-entity
  options:
    entity: tasks
    method: create
    function: rest-create-task
    parameters:
      title: =@ctx.action.parameters.title
    onSuccess:
      - refresh
      - type: action.go-back
parameters:
  title:
    type: string
    required: true
`;
    const file = new LanguageService(ROOT, new Map([[at('actions/add.platform'), withFollowUp]])).source(
      at('actions/add.platform'),
    )!;
    expect(tree(documentSymbols(file))).toEqual([
      {
        'action.execute-entity (tasks · rest-create-task)': [
          { parameters: ['title (=@ctx.action.parameters.title)'] },
          'onSuccess: refresh',
          'action.go-back',
        ],
      },
      { parameters: ['title (string, required)'] },
    ]);
  });

  test("an action step's literal credentials are masked in the outline (review finding 4)", () => {
    const text = `action:
  type: action.execute-entity
  options:
    entity: tasks
    function: rest-create-task
    parameters:
      title: =@ctx.action.parameters.title
      api_key: hunter2
      X-Api-Key: plainsecret99
      pageToken: next
`;
    const file = new LanguageService(ROOT, new Map([[at('actions/add.platform'), text]])).source(
      at('actions/add.platform'),
    )!;
    const shown = JSON.stringify(tree(documentSymbols(file)));
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('plainsecret99');
    expect(shown).toContain('api_key (***)');
    expect(shown).toContain('pageToken (next)');
    expect(shown).toContain('title (=@ctx.action.parameters.title)');
  });

  test('solution.yaml: its settings and named expressions', () => {
    expect(tree(documentSymbols(s.source(at('solution.yaml'))!))).toEqual([
      'name (tasks)',
      { expressions: ['today (=$substring($now(), 0, 10))'] },
      { settings: [{ http: ['connectTimeoutMs (5000)'] }] },
    ]);
  });
});
