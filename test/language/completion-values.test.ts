import { describe, expect, test } from 'vitest';
import { completeAt, crmService } from '../helpers/completion-solution.js';

const labels = (list: Array<{ label: string }>) => list.map((c) => c.label);

describe('completion of values', () => {
  test("a function's method: the schema's methods, the one being typed replaced whole", () => {
    const found = completeAt(
      crmService(),
      'functions/rest-ping.platform',
      'provider: DATA_PROVIDER_REST\nmethod: PO‸\nurl: https://crm.example.com/ping\n',
    );
    expect(labels(found)).toEqual(['DELETE', 'GET', 'HEAD', 'PUT', 'PATCH', 'POST']);
    expect(found[0]).toMatchObject({ kind: 'value', from: 'method: '.length });
    expect(found[0]!.documentation).toBe('HTTP method of the outbound call.');
  });

  test("a parameter's location, a datasource's provider, an action's type, a boolean", () => {
    const s = crmService();
    const location = completeAt(
      s,
      'functions/rest-ping.platform',
      'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://x.example.com\nparameters:\n  id:\n    location: ‸\n',
    );
    expect(labels(location)).toEqual(['header', 'path', 'query', 'body', 'output']);
    const provider = completeAt(
      s,
      'datasources/d.platform',
      'type: datasource.sqlite\noptions:\n  provider: ‸\n',
    );
    expect(labels(provider)).toEqual(['DATA_PROVIDER_LOCAL', 'DATA_PROVIDER_REST', 'DATA_PROVIDER_DYNAMIC']);
    const type = completeAt(s, 'actions/a.platform', 'action:\n  type: action.exec‸\n');
    expect(labels(type)).toEqual(
      expect.arrayContaining(['action.execute-entity', 'action.execute-action', 'action.go-back']),
    );
    const isDocument = completeAt(
      s,
      'datasources/d.platform',
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  isDocument: ‸\n',
    );
    expect(labels(isDocument)).toEqual(['true', 'false']);
  });

  test('after function: the functions, with method and url', () => {
    const found = completeAt(
      crmService(),
      'datasources/customers.platform',
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: customers\n      function: rest-get-c‸\n',
    );
    expect(labels(found)).toEqual(['rest-create-customer', 'rest-get-customers']);
    expect(found[1]).toMatchObject({
      detail: 'GET https://crm.example.com/customers',
      from: '      function: '.length,
    });
  });

  test('entity and table names: from datasources, operations and actions, each with where it comes from', () => {
    const s = crmService();
    const entity = completeAt(
      s,
      'actions/save.platform',
      'action:\n  type: action.execute-entity\n  options:\n    provider: DATA_PROVIDER_LOCAL\n    entity: cu‸\n    method: save\n',
    );
    expect(labels(entity)).toEqual(['customers', 'orders']);
    expect(entity[0]!.detail).toBe(
      'function rest-create-customer, datasource customers, action add-customer, action refresh',
    );
    expect(entity[1]!.detail).toBe('datasource orders');
    // An operation's table in a function, and a bare list item under a datasource's entities.
    const table = completeAt(
      crmService(),
      'functions/rest-x.platform',
      'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://x.example.com\noperations:\n  - type: operation.upsert-merge\n    table: ‸\n',
    );
    expect(labels(table)).toEqual(['customers', 'orders']);
    const item = completeAt(
      crmService(),
      'datasources/both.platform',
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - orders\n    - cu‸\n',
    );
    expect(labels(item)).toEqual(expect.arrayContaining(['customers', 'orders', 'entity', 'function']));
  });

  test('action names in execute-action and in a follow-up', () => {
    const s = crmService();
    const found = completeAt(
      s,
      'actions/start.platform',
      'action:\n  type: action.execute-action\n  options:\n    action: re‸\n',
    );
    expect(labels(found)).toEqual(['add-customer', 'refresh']);
    expect(found[0]).toMatchObject({ kind: 'action', detail: 'action.execute-entity' });
    expect(found[0]!.documentation).toContain('parameters: name, vip');
    const followUp = completeAt(
      s,
      'actions/start.platform',
      'action:\n  type: action.execute-entity\n  options:\n    provider: DATA_PROVIDER_LOCAL\n    entity: customers\n    method: delete\n    onSuccess: ‸\n',
    );
    expect(labels(followUp)).toEqual(['add-customer', 'refresh']);
  });

  test('keys: those already written in the mapping are left out', () => {
    const found = completeAt(
      crmService(),
      'functions/rest-ping.platform',
      'provider: DATA_PROVIDER_REST\nmethod: GET\n‸\nurl: https://x.example.com\n',
    );
    expect(labels(found)).toEqual(expect.arrayContaining(['parameters', 'outputTransform']));
    expect(labels(found)).not.toContain('method');
    expect(labels(found)).not.toContain('url');
  });

  test('table names in SQL after [: a datasource query (block scalar) and a query statement', () => {
    const s = crmService();
    const query = completeAt(
      s,
      'datasources/report.platform',
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - orders\n  query: |\n    SELECT o.id FROM [orders] o\n    JOIN [cu‸\n',
    );
    expect(labels(query)).toEqual(['customers', 'orders']);
    expect(query[0]!.from).toBe('    JOIN ['.length);
    const statement = completeAt(
      s,
      'functions/rest-x.platform',
      'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://x.example.com\nqueries:\n  open:\n    statement: SELECT id FROM [‸\n',
    );
    expect(labels(statement)).toEqual(['customers', 'orders']);
  });
});
