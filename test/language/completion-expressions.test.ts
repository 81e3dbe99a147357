import { describe, expect, test } from 'vitest';
import { completeAt, crmService } from '../helpers/completion-solution.js';

const labels = (list: Array<{ label: string }>) => list.map((c) => c.label);

const FN = (value: string) => `provider: DATA_PROVIDER_REST
method: POST
url: https://crm.example.com/notes
parameters:
  customerId:
    location: path
    type: string
    required: true
  text:
    location: body
    type: string
queries:
  last-note:
    statement: SELECT id FROM [notes] LIMIT 1
${value}`;

describe('completion inside expressions', () => {
  test('after @ctx. every context field conventions.md lists, with its doc; after @. the same', () => {
    const found = completeAt(
      crmService(),
      'functions/rest-add-note.platform',
      FN('outputTransform: =@ctx.‸\n'),
    );
    expect(labels(found)).toEqual(
      expect.arrayContaining([
        'parameters',
        'queries',
        'guard',
        'request',
        'response',
        'output',
        'error',
        'entity',
        'commandId',
        'correlationId',
        'user',
        'solution',
        'record',
        'organization',
        'system',
        'expressions',
        'datasources',
      ]),
    );
    expect(found.find((c) => c.label === 'response')).toMatchObject({
      kind: 'context',
      from: 'outputTransform: =@ctx.'.length,
    });
    const start = completeAt(crmService(), 'functions/rest-add-note.platform', FN('when: =@c‸\n'));
    expect(start).toEqual([expect.objectContaining({ label: '@ctx', from: 'when: ='.length })]);
    const alias = completeAt(crmService(), 'functions/rest-add-note.platform', FN('records: =@.res‸\n'));
    expect(labels(alias)).toEqual(labels(found));
    expect(alias[0]!.from).toBe('records: =@.'.length);
  });

  test('deeper: parameters, queries, response fields, settings, named expressions, datasources', () => {
    const s = crmService();
    const at = (expression: string) =>
      completeAt(s, 'functions/rest-add-note.platform', FN(`when: ${expression}\n`));
    expect(labels(at('=@ctx.parameters.‸'))).toEqual(['customerId', 'text']);
    expect(at('=@ctx.parameters.c‸')[0]).toMatchObject({ detail: 'string · path · required' });
    expect(labels(at('=@ctx.queries.‸'))).toEqual(['last-note']);
    expect(labels(at('=@ctx.response.‸'))).toEqual(['ok', 'status', 'statusText', 'headers', 'body']);
    expect(labels(at('=@ctx.solution.settings.custom.‸'))).toEqual(['region', 'pageSize']);
    expect(labels(at("='x' & @ctx.expressions.to‸"))).toEqual(['today', 'region']);
    expect(labels(at('=$count(@ctx.datasources.‸'))).toEqual(['customers', 'orders']);
    expect(labels(at('=@ctx.system.timezone.‸'))).toEqual(['name', 'offset']);
  });

  test('in a block scalar, on a line of its own, deep inside a JSONata object', () => {
    const found = completeAt(
      crmService(),
      'functions/rest-add-note.platform',
      FN(`inputTransform: |
  {
    "text": text,
    "by": @ctx.user.‸
  }
`),
    );
    expect(labels(found)).toEqual(['id', 'email', 'displayName']);
    expect(found[0]!.from).toBe('    "by": @ctx.user.'.length);
  });

  test("$: JSONata's functions with signatures, restfn's own, the script modules and named expressions", () => {
    const found = completeAt(
      crmService(),
      'datasources/notes.platform',
      `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: notes
      function: rest-add-note
      functionParameters:
        text: =$su‸
`,
    );
    expect(labels(found)).toEqual(
      expect.arrayContaining(['$substring', '$sum', '$uuid', '$isTempId', '$format', '$today']),
    );
    expect(found.find((c) => c.label === '$substring')).toMatchObject({
      kind: 'jsonata',
      detail: '$substring(string, number, number?): string',
      from: '        text: ='.length,
    });
    expect(found.find((c) => c.label === '$uuid')!.detail).toBe('$uuid(): string');
    expect(found.find((c) => c.label === '$format')!.documentation).toBe(
      'Script module: fullName, money, initials, monogram.',
    );
  });

  test('$<script>. : the functions the script exports, read from its text, never run', () => {
    const s = crmService({
      // Running this script would throw at once: completion only reads it.
      'scripts/expressions/boom.js': "throw new Error('ran');\nexport function detonate(when) {}\n",
    });
    const at = (expression: string) =>
      completeAt(s, 'actions/greet.platform', `action:\n  type: action.go-back\n  when: ${expression}\n`);
    const found = at('=$format.‸');
    expect(labels(found)).toEqual(['fullName', 'money', 'initials', 'monogram']);
    expect(found[0]).toMatchObject({ kind: 'script', detail: '$format.fullName(first, last)' });
    expect(found.find((c) => c.label === 'monogram')!.detail).toBe('$format.monogram(name)');
    expect(labels(at('=$boom.d‸'))).toEqual(['detonate']);
    expect(labels(at('=$nothing.‸'))).toEqual([]);
  });

  test("an action's own parameters under @ctx.action.parameters", () => {
    const found = completeAt(
      crmService(),
      'actions/add-customer.platform',
      `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: create
    function: rest-create-customer
    parameters:
      name: =@ctx.action.parameters.‸
parameters:
  name:
    type: string
    required: true
  vip:
    type: boolean
`,
    );
    expect(labels(found)).toEqual(['name', 'vip']);
  });

  test("@ctx.datasources.<name>. : that datasource's columns, from its query or its static rows", () => {
    const s = crmService({
      'datasources/open-orders.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - orders
  query: |
    SELECT o.id, o.'$.total', o.'$.customer.name', count(l.id) AS lines, coalesce(o.'$.a', 'x, y') AS note
    FROM [orders] o LEFT JOIN [lines] l ON l.'$.order' = o.id GROUP BY o.id
`,
      'datasources/everything.platform':
        'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - orders\n  query: SELECT * FROM [orders]\n',
      'datasources/tiers.platform':
        'type: datasource.static\noptions:\n  data:\n    - { id: basic, label: Basic }\n    - { id: gold, label: Gold, discount: 10 }\n',
    });
    const at = (expression: string) =>
      completeAt(s, 'actions/report.platform', `action:\n  type: action.go-back\n  when: ${expression}\n`);
    expect(labels(at('=$count(@ctx.datasources.open-orders.‸'))).toEqual([
      'id',
      'total',
      'name',
      'lines',
      'note',
    ]);
    expect(labels(at('=@ctx.datasources.tiers.‸'))).toEqual(['id', 'label', 'discount']);
    // A query with * says nothing of its columns: nothing is guessed.
    expect(labels(at('=@ctx.datasources.everything.‸'))).toEqual([]);
    expect(labels(at('=@ctx.datasources.customers.‸'))).toEqual(['id', 'data']);
    expect(at('=@ctx.datasources.‸').find((c) => c.label === 'tiers')!.documentation).toBe(
      'Its rows: id, label, discount.',
    );
    // A datasource does not read its own rows.
    const own = completeAt(
      s,
      'datasources/customers.platform',
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: customers\n      function: rest-get-customers\n      functionParameters:\n        since: =@ctx.datasources.‸\n',
    );
    expect(labels(own)).not.toContain('customers');
    expect(labels(own)).toContain('tiers');
  });
});
