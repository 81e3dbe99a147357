import { describe, expect, test } from 'vitest';
import { completeAt, crmService } from '../helpers/completion-solution.js';

const labels = (list: Array<{ label: string }>) => list.map((c) => c.label);
const byOrder = <T extends { label: string; sortText?: string }>(list: T[]) =>
  [...list].sort((a, b) => (a.sortText ?? a.label).localeCompare(b.sortText ?? b.label));

describe('completion of parameter names and credential keys', () => {
  test("functionParameters of a datasource's entity: the named function's, required first, written ones left out", () => {
    const found = completeAt(
      crmService(),
      'datasources/customers.platform',
      `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: customers
      function: rest-get-customers
      functionParameters:
        region: emea
        ‸
  query: SELECT id, data FROM [customers]
`,
    );
    expect(labels(byOrder(found))).toEqual(['since', 'x-api-key']);
    expect(found.find((c) => c.label === 'since')).toMatchObject({
      kind: 'parameter',
      detail: 'string · query · required',
      sortText: '0since',
    });
    expect(found.find((c) => c.label === 'x-api-key')!.documentation).toContain('Default: `"crm-api-key"`');
  });

  test("an action's parameters: the function's (function: below the block), and execute-action's: the action's", () => {
    const s = crmService();
    const fn = completeAt(
      s,
      'actions/new.platform',
      `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: create
    parameters:
      t‸
    function: rest-create-customer
`,
    );
    expect(labels(byOrder(fn))).toEqual(['name', 'email', 'tier']);
    expect(fn[0]!.from).toBe(6);
    const action = completeAt(
      s,
      'actions/start.platform',
      `action:
  type: action.execute-action
  options:
    action: add-customer
    parameters:
      ‸
`,
    );
    expect(labels(byOrder(action))).toEqual(['name', 'vip']);
    expect(action[1]!.detail).toBe('boolean · optional');
  });

  test("a function's own parameters block names nothing beside it: the schema's keys", () => {
    const found = completeAt(
      crmService(),
      'functions/rest-x.platform',
      'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://x.example.com\nparameters:\n  id:\n    ‸\n',
    );
    expect(labels(found)).toEqual(expect.arrayContaining(['location', 'type', 'required', 'value']));
  });

  test("a credential parameter's value: the stored keys and kinds, and no value ever", () => {
    const s = crmService();
    s.setCredentialKeys(() => [
      { key: 'crm-api-key', kind: 'secret', origin: 'local' },
      { key: 'crm-api-key', kind: 'secret', origin: 'platform' },
      { key: 'graph', kind: 'oauth', origin: 'platform' },
    ]);
    const found = completeAt(
      s,
      'functions/rest-x.platform',
      `provider: DATA_PROVIDER_REST
method: GET
url: https://x.example.com
parameters:
  x-api-key:
    location: header
    type: secret
    value: crm-‸
    required: true
`,
    );
    expect(found).toEqual([
      expect.objectContaining({
        label: 'crm-api-key',
        kind: 'credential',
        detail: 'secret credential (this machine, the platform)',
        from: '    value: '.length,
      }),
      expect.objectContaining({ label: 'graph', detail: 'oauth credential (the platform)' }),
    ]);
    // An accessToken is OAuth whatever its type; a plain parameter's value is no credential.
    const token = completeAt(s, 'functions/rest-x.platform', 'parameters:\n  accessToken:\n    value: ‸\n');
    expect(labels(token)).toEqual(['crm-api-key', 'graph']);
    const plain = completeAt(
      s,
      'functions/rest-x.platform',
      'parameters:\n  limit:\n    type: number\n    value: ‸\n',
    );
    expect(labels(plain)).toEqual([]);
  });

  test("a parameter's type: the types restfn knows, secret among them", () => {
    const found = completeAt(
      crmService(),
      'functions/rest-x.platform',
      'parameters:\n  limit:\n    type: n‸\n',
    );
    expect(labels(found)).toEqual(expect.arrayContaining(['string', 'number', 'boolean', 'array', 'secret']));
    expect(found[0]).toMatchObject({ kind: 'value', from: '    type: '.length });
  });
});
