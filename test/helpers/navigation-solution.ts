// A small solution in the platform's style for the navigation tests (hover, definition, references,
// outline): functions, datasources naming them and reading each other, actions starting each other,
// a solution-level expression and an expression script. Paths are relative to the solution.

export const NAVIGATION_SOLUTION: Record<string, string> = {
  'solution.yaml': `name: tasks
expressions:
  today: =$substring($now(), 0, 10)
settings:
  http:
    connectTimeoutMs: 5000
`,
  'functions/rest-get-tasks.platform': `# The tasks of some lists; rest-get-task-lists in this comment is no reference.
provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/tasks?api_key=abc123&view=full
parameters:
  lists:
    location: query
    type: string
    required: true
  pageSize:
    location: query
    type: int
    value: 50
records: =$.value
outputTransform: $.items
error:
  - when: =@ctx.response.status = 404
    title: No tasks
operations:
  - type: operation.upsert-merge
    table: tasks
    records: =@ctx.output
`,
  'functions/lists.platform': `functionId: rest-get-task-lists
provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/lists
guard:
  function: rest-get-tasks
`,
  'datasources/task-lists.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: task-lists
      function: rest-get-task-lists
  query: SELECT id, '$.name' FROM [task-lists]
`,
  'datasources/open-tasks.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: tasks
      function: rest-get-tasks
      functionParameters:
        lists: =$join(["🗂 é", @ctx.datasources.task-lists.id], $format.separator())
  query: SELECT id, '$.title' FROM [tasks]
`,
  'actions/refresh.platform': `action:
  type: action.action-list
  options:
    isSequential: true
    actions:
      - type: action.sync-entities
        options:
          provider: DATA_PROVIDER_REST
          entities:
            - entity: tasks
              function: rest-get-tasks
      - type: action.execute-action
        options:
          action: notify
`,
  'actions/notify.platform': `action:
  type: action.go-back
  options:
    title: =$format.separator()
`,
  'scripts/expressions/format.js': `// Helpers for expressions: $format.separator()
export function separator() {
  return ',';
}
`,
};

/** Where `word` is written in a text: its `nth` occurrence's line and UTF-16 character (LSP's). */
export function where(text: string, word: string, nth = 0): { line: number; character: number } {
  let index = -1;
  for (let i = 0; i <= nth; i++) {
    index = text.indexOf(word, index + 1);
    if (index === -1) throw new Error(`'${word}' (#${nth}) is not in the text`);
  }
  const before = text.slice(0, index);
  const line = before.split('\n').length - 1;
  return { line, character: index - (before.lastIndexOf('\n') + 1) };
}

/** The range `word` covers at its `nth` occurrence. */
export function rangeOfWord(text: string, word: string, nth = 0) {
  const start = where(text, word, nth);
  return { start, end: { line: start.line, character: start.character + word.length } };
}
