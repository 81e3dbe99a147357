import { describe, expect, test } from 'vitest';
import { renderTemplate, TEMPLATE_NAMES } from '../../src/definition/templates.js';
import { completeAt, crmService } from '../helpers/completion-solution.js';

/** A snippet as an editor expands it when the author tabs through every placeholder. */
function expand(snippet: string): string {
  return snippet
    .replace(/\$\{\d+:((?:\\.|[^}\\])*)\}/g, '$1')
    .replace(/\$\{\d+\|([^,|]*)[^|]*\|\}/g, '$1')
    .replace(/\$0/g, '')
    .replace(/\\([\\$}])/g, '$1');
}

describe('snippets for the templates', () => {
  test("an empty function file offers the six templates 'restfn new -t' writes, as snippets", async () => {
    const s = crmService();
    const found = completeAt(s, 'functions/rest-new.platform', '# my function\n‸');
    expect(found.map((c) => c.label)).toEqual(TEMPLATE_NAMES.map((t) => `template: ${t}`));
    const apiKey = found.find((c) => c.label === 'template: api-key')!;
    expect(apiKey).toMatchObject({ kind: 'snippet', snippet: true, detail: 'restfn new NAME -t api-key' });
    // LSP's snippet syntax, not template literals.
    const $ = '$';
    expect(apiKey.insertText).toContain(`url: ${$}{1:https://api.example.com/items}`);
    expect(apiKey.insertText).toContain(`method: ${$}{2|GET,POST,PUT,PATCH,DELETE|}`);
    expect(apiKey.insertText).toContain(`value: ${$}{3:api-key}`);
    // Expanded with its defaults each is the template itself, which validates without findings.
    for (const [i, name] of TEMPLATE_NAMES.entries()) {
      const text = expand(found[i]!.insertText!);
      expect(text).toBe(renderTemplate(name));
      const path = `/nowhere/crm/functions/rest-${name}.platform`;
      s.setText(path, text);
      expect((await s.diagnostics([path])).get(path)).toEqual([]);
    }
  });

  test('a file with content, or another kind of file, gets keys instead', () => {
    const s = crmService();
    const keys = completeAt(s, 'functions/rest-new.platform', 'method: GET\n‸');
    expect(keys.map((c) => c.kind)).not.toContain('snippet');
    const datasource = completeAt(s, 'datasources/new.platform', 'type: datasource.sqlite\n‸');
    expect(datasource.map((c) => c.label)).toEqual(['options']);
  });

  test("an empty datasource or action file offers 'restfn new -t datasource|action' as a snippet, then the keys", async () => {
    const s = crmService({
      'functions/rest-get-invoices.platform':
        'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://crm.example.com/invoices\n',
    });
    const datasource = completeAt(s, 'datasources/invoices.platform', '‸');
    expect(datasource.map((c) => c.label)).toEqual(['template: datasource', 'type', 'options']);
    expect(datasource[0]).toMatchObject({
      kind: 'snippet',
      snippet: true,
      detail: 'restfn new invoices -t datasource --function rest-get-invoices',
    });
    const $ = '$';
    expect(datasource[0]!.insertText).toContain(`- entity: ${$}{1:invoices}`);
    expect(datasource[0]!.insertText).toContain(`function: ${$}{2:rest-get-invoices}`);
    const action = completeAt(s, 'actions/new-customer.platform', '# an action\n‸');
    expect(action[0]).toMatchObject({
      label: 'template: action',
      detail: 'restfn new new-customer -t action --function rest-create-customer --entity new-customer',
    });
    expect(action[0]!.insertText).toContain(`method: ${$}{3|create,update,save,delete,functionCall|}`);
    // Expanded with its defaults each is what `restfn new` writes, and validates without findings.
    for (const [path, entry] of [
      ['/nowhere/crm/datasources/invoices.platform', datasource[0]!],
      ['/nowhere/crm/actions/new-customer.platform', action[0]!],
    ] as const) {
      s.setText(path, expand(entry.insertText!));
      expect((await s.diagnostics([path])).get(path)).toEqual([]);
    }
    // Without a valid function there is nothing to fill: the keys alone.
    const bare = completeAt(
      crmService({
        'functions/rest-get-customers.platform': 'x: [',
        'functions/rest-create-customer.platform': 'x: [',
      }),
      'datasources/d.platform',
      '‸',
    );
    expect(bare.map((c) => c.label)).toEqual(['type', 'options']);
  });
});
