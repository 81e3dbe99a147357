import { join } from 'node:path';
import { LanguageService } from '../../src/language/service.js';

// A small CRM solution in the platform's style for the completion tests (service and `restfn lsp`):
// functions with parameters (a credential, required ones, defaults) and queries, a datasource, two
// global actions, solution settings and named expressions, and an expression script.

export const CRM: Readonly<Record<string, string>> = {
  'solution.yaml': `name: crm
title: Field CRM
expressions:
  today: =$substring($now(), 0, 10)
  region: =@ctx.solution.settings.custom.region
settings:
  custom:
    region: emea
    pageSize: 50
`,
  'functions/rest-get-customers.platform': `provider: DATA_PROVIDER_REST
method: GET
url: https://crm.example.com/customers
parameters:
  x-api-key:
    location: header
    type: secret
    required: true
    value: crm-api-key
  region:
    location: query
    type: string
    value: emea
  since:
    location: query
    type: string
    required: true
outputTransform: $.items
`,
  'functions/rest-create-customer.platform': `provider: DATA_PROVIDER_REST
method: POST
url: https://crm.example.com/customers
parameters:
  name:
    location: body
    type: string
    required: true
  email:
    location: body
    type: string
  tier:
    location: body
    type: string
    value: basic
queries:
  open-orders:
    statement: SELECT id FROM [orders] WHERE '$.customer' = @id
operations:
  - type: operation.upsert-merge
    table: customers
    records: =@ctx.output
`,
  'datasources/customers.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: customers
      function: rest-get-customers
  query: SELECT id, data FROM [customers]
`,
  'datasources/orders.platform': `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - orders
  query: SELECT id, data FROM [orders]
`,
  'actions/add-customer.platform': `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: create
    function: rest-create-customer
    parameters:
      name: =@ctx.action.parameters.name
parameters:
  name:
    type: string
    required: true
  vip:
    type: boolean
`,
  'actions/refresh.platform': `action:
  type: action.sync-entities
  options:
    provider: DATA_PROVIDER_LOCAL
    entities:
      - entity: customers
        function: rest-get-customers
`,
  'scripts/expressions/format.js': `// Formatting helpers for expressions.
export function fullName(first, last) {
  return \`\${first} \${last}\`;
}
export const money = (amount, currency) => \`\${amount} \${currency}\`;
function initials(name) {
  return name.split(' ').map((p) => p[0]).join('');
}
export { initials, initials as monogram };
`,
};

export const CRM_ROOT = '/nowhere/crm';

export function crmService(extra: Record<string, string> = {}): LanguageService {
  const files = { ...CRM, ...extra };
  return new LanguageService(
    CRM_ROOT,
    new Map(Object.entries(files).map(([p, t]) => [join(CRM_ROOT, p), t])),
  );
}

/** Where `‸` stands in `marked`: the text without it, and the 0-based line and character. */
export function cursor(marked: string): { text: string; line: number; character: number } {
  const at = marked.indexOf('‸');
  if (at === -1) throw new Error('no ‸ in the text');
  const before = marked.slice(0, at).split('\n');
  return { text: marked.replace('‸', ''), line: before.length - 1, character: before.at(-1)!.length };
}

/** Puts `marked` (with `‸` at the cursor) at `path` of the service and completes there. */
export function completeAt(service: LanguageService, path: string, marked: string) {
  const { text, line, character } = cursor(marked);
  const absolute = join(CRM_ROOT, path);
  service.setText(absolute, text);
  return service.completions(absolute, line, character);
}
