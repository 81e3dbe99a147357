import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  type CompletionItem,
  CompletionRequest,
  InsertTextFormat,
} from 'vscode-languageserver-protocol/node';
import { CRM, cursor } from '../helpers/completion-solution.js';
import { type LspClient, openDocument, startLsp } from '../helpers/lsp-client.js';
import { tempSolution } from '../helpers/temp-solution.js';

// Completion gaps a new user found, through the built `restfn lsp` and a real LSP client on the
// CRM solution: later keys of a list item, an action type's own option keys, indexed context paths.

async function labelsAt(lsp: LspClient, path: string, marked: string): Promise<string[]> {
  const { text, line, character } = cursor(marked);
  const { uri } = await openDocument(lsp, path, text);
  const answer = await lsp.client.sendRequest(CompletionRequest.type, {
    textDocument: { uri },
    position: { line, character },
  });
  return (Array.isArray(answer) ? answer : (answer?.items ?? [])).map((i: CompletionItem) => i.label);
}

const FUNCTION_HEAD = 'provider: DATA_PROVIDER_REST\nmethod: GET\nurl: https://crm.example.com/x\n';

describe('restfn lsp completion gaps', { timeout: 60_000 }, () => {
  test("a list item's second and later keys, and keys nested in an item", async () => {
    const root = tempSolution(CRM);
    const lsp = await startLsp(root);
    const ds = join(root, 'datasources', 'customers.platform');
    const item =
      'type: datasource.sqlite\noptions:\n  provider: DATA_PROVIDER_LOCAL\n  entities:\n    - entity: customers\n      function: rest-get-customers\n';
    expect(await labelsAt(lsp, ds, `${item}      ‸\n`)).toEqual(['functionParameters']);
    expect(await labelsAt(lsp, ds, `${item}      f‸\n`)).toEqual(['functionParameters']);
    const fn = join(root, 'functions', 'rest-x.platform');
    const error = await labelsAt(lsp, fn, `${FUNCTION_HEAD}error:\n  - title: x\n    w‸\n`);
    expect(error).toContain('when');
    expect(error).not.toContain('title');
    const alert = await labelsAt(lsp, fn, `${FUNCTION_HEAD}error:\n  - title: x\n    alert:\n      ‸\n`);
    expect(alert).toEqual(expect.arrayContaining(['title', 'subtitle', 'presentAs', 'dismiss']));
    expect(lsp.stderr()).toBe('');
  });

  test("an action's options: the keys of the type written, not every action type's", async () => {
    const root = tempSolution(CRM);
    const lsp = await startLsp(root);
    const action = join(root, 'actions', 'a.platform');
    const entity = await labelsAt(lsp, action, 'action:\n  type: action.execute-entity\n  options:\n    ‸\n');
    expect(entity).toEqual(expect.arrayContaining(['entity', 'method', 'function', 'functionParameters']));
    for (const other of ['entities', 'actions', 'isSequential', 'modal', 'onConfirmed', 'commandId'])
      expect(entity).not.toContain(other);
    // The type below the options (and a half-typed key) says it as well.
    const sync = await labelsAt(
      lsp,
      action,
      'action:\n  options:\n    provider: DATA_PROVIDER_LOCAL\n    e‸\n  type: action.sync-entities\n',
    );
    expect(sync).toContain('entities');
    expect(sync).not.toContain('method');
  });

  test("after an index or a filter, a datasource's columns still complete", async () => {
    const root = tempSolution(CRM);
    const lsp = await startLsp(root);
    const fn = join(root, 'functions', 'rest-x.platform');
    const at = (path: string) =>
      labelsAt(lsp, fn, `${FUNCTION_HEAD}outputTransform: =@ctx.datasources.${path}‸\n`);
    expect(await at('customers.')).toEqual(['id', 'data']);
    expect(await at('customers[0].')).toEqual(['id', 'data']);
    expect(await at("customers[data = 'x'].")).toEqual(['id', 'data']);
  });

  test("an empty datasource or action file: 'restfn new -t datasource|action' as a snippet", async () => {
    const root = tempSolution(CRM);
    const lsp = await startLsp(root);
    for (const [path, label] of [
      [join(root, 'datasources', 'invoices.platform'), 'template: datasource'],
      [join(root, 'actions', 'add-invoice.platform'), 'template: action'],
    ] as const) {
      const { uri } = await openDocument(lsp, path, '');
      const answer = await lsp.client.sendRequest(CompletionRequest.type, {
        textDocument: { uri },
        position: { line: 0, character: 0 },
      });
      const items = Array.isArray(answer) ? answer : (answer?.items ?? []);
      expect(items[0]).toMatchObject({ label, kind: 15, insertTextFormat: InsertTextFormat.Snippet });
      expect(items.map((i) => i.label)).toContain('type');
    }
    expect(lsp.stderr()).toBe('');
  });
});
