import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { HoverRequest } from 'vscode-languageserver-protocol/node';
import { CRM } from '../helpers/completion-solution.js';
import { type LspClient, openDocument, startLsp } from '../helpers/lsp-client.js';
import { tempSolution } from '../helpers/temp-solution.js';

// Hover where a new user found it empty, through the built `restfn lsp`: names inside expressions
// (what completion says of them), solution.yaml's `settings`, an action's `type`.

/** Hover on the `nth` (0-based) occurrence of `word` in the file, one character into it. */
async function hoverOn(lsp: LspClient, path: string, text: string, word: string, nth = 0) {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(word, at + 1);
  if (at === -1) throw new Error(`no ${word}`);
  const before = text.slice(0, at + 1).split('\n');
  const answer = await lsp.client.sendRequest(HoverRequest.type, {
    textDocument: { uri: pathToFileURL(path).href },
    position: { line: before.length - 1, character: before.at(-1)!.length },
  });
  return answer && { value: (answer.contents as { value: string }).value, range: answer.range };
}

describe('restfn lsp hover gaps', { timeout: 60_000 }, () => {
  test("inside expressions: the context field's, the setting's, the function's text", async () => {
    const root = tempSolution(CRM);
    const lsp = await startLsp(root);
    const action = join(root, 'actions', 'add-customer.platform');
    await openDocument(lsp, action, CRM['actions/add-customer.platform']!);
    const parameter = await hoverOn(lsp, action, CRM['actions/add-customer.platform']!, 'name', 1);
    expect(parameter?.value).toBe('**`name`** · `string · required`');
    expect(parameter?.range).toEqual({
      start: { line: 8, character: 36 },
      end: { line: 8, character: 40 },
    });
    const field = await hoverOn(lsp, action, CRM['actions/add-customer.platform']!, 'action.parameters');
    expect(field?.value).toBe('**`action`**\n\nThe global action being run.');

    const solution = join(root, 'solution.yaml');
    const text = CRM['solution.yaml']!;
    await openDocument(lsp, solution, text);
    expect((await hoverOn(lsp, solution, text, 'region', 1))?.value).toBe(
      '**`region`** · `"emea"`\n\nsolution.yaml settings.custom',
    );
    expect((await hoverOn(lsp, solution, text, '$substring'))?.value).toBe(
      '**`$substring`** · `$substring(string, number, number?): string`\n\nJSONata function.',
    );
    expect(lsp.stderr()).toBe('');
  });

  test("solution.yaml's settings and an action's type: their descriptions", async () => {
    const root = tempSolution(CRM);
    const lsp = await startLsp(root);
    const solution = join(root, 'solution.yaml');
    await openDocument(lsp, solution, CRM['solution.yaml']!);
    const settings = await hoverOn(lsp, solution, CRM['solution.yaml']!, 'settings:');
    expect(settings?.value).toContain("The solution's settings: `custom` values");
    const action = join(root, 'actions', 'add-customer.platform');
    await openDocument(lsp, action, CRM['actions/add-customer.platform']!);
    const type = await hoverOn(lsp, action, CRM['actions/add-customer.platform']!, 'type: action');
    expect(type?.value).toContain(
      'Changes one local record here at once and queues the function that changes it on the service.',
    );
    const sync = join(root, 'actions', 'refresh.platform');
    await openDocument(lsp, sync, CRM['actions/refresh.platform']!);
    expect((await hoverOn(lsp, sync, CRM['actions/refresh.platform']!, 'type: action'))?.value).toContain(
      "Runs each entity's function and writes its result into the local table",
    );
  });
});
