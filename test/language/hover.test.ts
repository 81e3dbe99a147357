import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RULES } from '../../src/definition/rule-codes.js';
import { hover } from '../../src/language/hover.js';
import { LanguageService } from '../../src/language/service.js';
import { maskedUrl } from '../../src/language/summary.js';
import { NAVIGATION_SOLUTION as FILES, rangeOfWord, where } from '../helpers/navigation-solution.js';

// Hover on the service directly: keys' reference text, findings' explanations, names' summaries.
const ROOT = '/nowhere/tasks';
const at = (p: string) => join(ROOT, p);

function service(files: Record<string, string> = FILES): LanguageService {
  return new LanguageService(ROOT, new Map(Object.entries(files).map(([p, t]) => [at(p), t])));
}

function inside(file: string, word: string, nth = 0) {
  const p = where(FILES[file]!, word, nth);
  return { line: p.line, character: p.character + 1 };
}

describe('hover', () => {
  test("on a key: docs/reference.md's type, required, meaning and default, from the same schema", () => {
    const s = service();
    const fn = 'functions/rest-get-tasks.platform';
    const url = hover(s, at(fn), inside(fn, 'url:'))!;
    expect(url.markdown).toBe(
      '**`url`** · string · required\n\nAddress of the remote service, with {name} path placeholders.',
    );
    expect(url.range).toEqual(rangeOfWord(FILES[fn]!, 'url'));
    // An enum: its values, as the reference writes them.
    const method = hover(s, at(fn), inside(fn, 'method'))!.markdown;
    expect(method).toContain('`DELETE`, `GET`, `HEAD`, `PUT`, `PATCH`, `POST`');
    expect(method).toContain('HTTP method of the outbound call.');
    // A parameter's key, under a name the author chose.
    const location = hover(s, at(fn), inside(fn, 'location'))!.markdown;
    expect(location).toContain('`header`, `path`, `query`, `body`, `output`');
    expect(location).toContain('Where the value goes');
  });

  test("a default, and a key inside an action's branch (chosen by its type)", () => {
    const s = service({
      ...FILES,
      'functions/rest-get-tasks.platform': `${FILES['functions/rest-get-tasks.platform']}format: json\n`,
    });
    const text = `${FILES['functions/rest-get-tasks.platform']}format: json\n`;
    const p = where(text, 'format: json');
    expect(hover(s, at('functions/rest-get-tasks.platform'), p)!.markdown).toContain('Default: `json`.');
    const action = 'actions/refresh.platform';
    const sequential = hover(s, at(action), inside(action, 'isSequential'))!.markdown;
    expect(sequential).toBe(
      '**`isSequential`** · boolean\n\ntrue: a failure stops the list. false (the default): every action runs and the failures are reported after.',
    );
    // `action:` means the wrapped action at the top, an action's name inside an execute-action.
    expect(hover(s, at(action), { line: 0, character: 1 })!.markdown).toBe(
      '**`action`** · action\n\nThe action.',
    );
    expect(hover(s, at(action), inside(action, 'action: notify'))!.markdown).toBe(
      "**`action`** · string · required\n\nA global action's name (a file in actions/).",
    );
  });

  test("on a finding's range: its code's rule and the finding's message (how to fix), with the key's doc", async () => {
    const s = service();
    const fn = at('functions/rest-get-tasks.platform');
    const findings = (await s.diagnostics([fn])).get(fn)!;
    expect(findings.map((d) => d.code)).toContain('LITERAL_CREDENTIAL');
    const p = inside('functions/rest-get-tasks.platform', 'https://');
    const answer = hover(s, fn, p, findings)!;
    expect(answer.markdown).toContain(
      `**LITERAL_CREDENTIAL** (warning): ${RULES.LITERAL_CREDENTIAL.summary}`,
    );
    expect(answer.markdown).toContain(
      "url query 'api_key' looks like a credential; use a 'type: secret' parameter",
    );
    // Without the findings, the same place explains nothing.
    expect(hover(s, fn, p)).toBeUndefined();
    // On the key beside it, the key's doc only.
    expect(
      hover(s, fn, inside('functions/rest-get-tasks.platform', 'url:'), findings)!.markdown,
    ).not.toContain('LITERAL_CREDENTIAL');
  });

  test("on a function's name: method, masked url, and its parameters in a table", () => {
    const s = service();
    const ds = 'datasources/open-tasks.platform';
    const answer = hover(s, at(ds), inside(ds, 'rest-get-tasks'))!;
    expect(answer.markdown).toBe(
      [
        '**function `rest-get-tasks`** `GET https://api.example.com/tasks?api_key=***&view=full`',
        '',
        '| parameter | type | where | required | default |',
        '|---|---|---|---|---|',
        '| `lists` | string | query | yes |  |',
        '| `pageSize` | int | query |  | `50` |',
        '',
        '`functions/rest-get-tasks.platform`',
      ].join('\n'),
    );
    expect(answer.markdown).not.toContain('abc123');
    expect(answer.range).toEqual(rangeOfWord(FILES[ds]!, 'rest-get-tasks'));
    // A function file's own functionId shows the same.
    const own = hover(
      s,
      at('functions/lists.platform'),
      inside('functions/lists.platform', 'rest-get-task-lists'),
    )!;
    expect(own.markdown).toContain('**function `rest-get-task-lists`** `GET https://api.example.com/lists`');
  });

  test("on an action's and a datasource's name: one line and its file", () => {
    const s = service();
    expect(
      hover(s, at('actions/refresh.platform'), inside('actions/refresh.platform', 'notify'))!.markdown,
    ).toBe('**action `notify`**: `action.go-back` — `actions/notify.platform`');
    const ds = 'datasources/open-tasks.platform';
    expect(hover(s, at(ds), inside(ds, 'task-lists.id'))!.markdown).toBe(
      '**datasource `task-lists`**: `datasource.sqlite`, DATA_PROVIDER_LOCAL, tables `task-lists` — `datasources/task-lists.platform`',
    );
  });

  test("on a local table's name: the datasources listing it", () => {
    expect(
      hover(service(), at('actions/refresh.platform'), inside('actions/refresh.platform', 'tasks'))!.markdown,
    ).toBe('**table `tasks`**: listed by `datasources/open-tasks.platform`');
  });

  test("a function's credentials: where they go by default, a literal secret masked, a key shown", () => {
    const fn = `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/a
parameters:
  apiKey:
    type: secret
    value: crm-api-key
  pageToken:
    location: query
    type: string
    value: ghp_abcdefghijklmnopqrstuvwxyz012345
`;
    const s = service({
      'functions/a.platform': fn,
      'datasources/a.platform': FILES['datasources/task-lists.platform']!.replace('rest-get-task-lists', 'a'),
    });
    const ds = FILES['datasources/task-lists.platform']!.replace('rest-get-task-lists', 'a');
    const p = where(ds, 'function: a');
    const markdown = hover(s, at('datasources/a.platform'), {
      line: p.line,
      character: p.character + 'function: '.length,
    })!.markdown;
    expect(markdown).toContain('| `apiKey` | secret | header |  | `crm-api-key` |');
    expect(markdown).toContain('| `pageToken` | string | query |  | *** |');
    expect(markdown).not.toContain('ghp_');
  });

  test('a literal under a credential name is masked in hover (review finding 4)', () => {
    const fn = `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/a
parameters:
  api_key:
    location: query
    value: hunter2
  X-Api-Key:
    location: header
    value: plainsecret99
`;
    const s = service({
      'functions/a.platform': fn,
      'datasources/a.platform': FILES['datasources/task-lists.platform']!.replace('rest-get-task-lists', 'a'),
    });
    const ds = FILES['datasources/task-lists.platform']!.replace('rest-get-task-lists', 'a');
    const p = where(ds, 'function: a');
    const markdown = hover(s, at('datasources/a.platform'), {
      line: p.line,
      character: p.character + 'function: '.length,
    })!.markdown;
    expect(markdown).toContain('| `api_key` |');
    expect(markdown).not.toContain('hunter2');
    expect(markdown).not.toContain('plainsecret99');
  });

  test('urls: a password and credential-named query values are masked; placeholders stay', () => {
    expect(maskedUrl('https://me:s3cret@api.example.com/a/{id}?token=xyz&q={q}&auth_key={key}#top')).toBe(
      'https://me:***@api.example.com/a/{id}?token=***&q={q}&auth_key={key}#top',
    );
    expect(maskedUrl('https://api.example.com/a?page=2')).toBe('https://api.example.com/a?page=2');
  });
});
