import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  CompletionRequest,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
} from 'vscode-languageserver-protocol/node';
import { runCli } from '../helpers/cli.js';
import { DATASOURCE, FUNCTION } from '../helpers/language-solution.js';
import { startLsp } from '../helpers/lsp-client.js';
import { tempSolution } from '../helpers/temp-solution.js';

// `restfn lsp` as an editor runs it (test/helpers/lsp-client.ts): findings and completion.

describe('restfn lsp', { timeout: 60_000 }, () => {
  test("a typo's finding is validate's (code, place, message); fixing it clears it", async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-customers'),
    });
    const ds = join(root, 'datasources', 'customers.platform');
    const uri = pathToFileURL(ds).href;
    const typo = DATASOURCE('rest-get-cusomers');
    const lsp = await startLsp(root);
    const opened = lsp.diagnostics(uri);
    await lsp.client.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'yaml', version: 1, text: typo },
    });
    const found = (await opened).diagnostics;
    // The same file on disk, as `restfn validate` sees it.
    const written = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': typo,
    });
    const validate = await runCli(['validate', '--format', 'json'], { cwd: written });
    const expected = JSON.parse(validate.stdout).diagnostics as Array<{
      code: string;
      line: number;
      col: number;
      message: string;
    }>;
    expect(expected).toHaveLength(1);
    expect(found).toEqual([
      {
        range: {
          start: { line: expected[0]!.line - 1, character: expected[0]!.col - 1 },
          end: { line: expected[0]!.line - 1, character: expected[0]!.col - 1 + 'rest-get-cusomers'.length },
        },
        severity: 1,
        code: expected[0]!.code,
        source: 'restfn',
        message: expected[0]!.message,
      },
    ]);
    expect(found[0]!.code).toBe('UNKNOWN_FUNCTION');

    const fixed = lsp.diagnostics(uri);
    await lsp.client.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 2 },
      contentChanges: [
        { range: { start: { line: 5, character: 28 }, end: { line: 5, character: 28 } }, text: 't' },
      ],
    });
    expect((await fixed).diagnostics).toEqual([]);
    expect(await lsp.stop()).toBe(0);
  });

  test("renaming a function file's function flags the datasource naming it; completion lists the functions", async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'functions/rest-get-orders.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-customers'),
    });
    const fn = pathToFileURL(join(root, 'functions', 'rest-get-customers.platform')).href;
    const ds = pathToFileURL(join(root, 'datasources', 'customers.platform')).href;
    const lsp = await startLsp(root);
    // The function's name is its file's, unless `functionId` says otherwise: renamed here.
    const flagged = lsp.diagnostics(ds, (p) => p.diagnostics.length > 0);
    await lsp.client.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: {
        uri: fn,
        languageId: 'restfn',
        version: 1,
        text: `functionId: rest-list-customers\n${FUNCTION}`,
      },
    });
    const [finding] = (await flagged).diagnostics;
    expect(finding!.code).toBe('UNKNOWN_FUNCTION');
    expect(finding!.message).toContain("function 'rest-get-customers' does not exist");
    expect(finding!.range.start).toEqual({ line: 5, character: 16 });

    const opened = lsp.diagnostics(ds);
    await lsp.client.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: ds, languageId: 'yaml', version: 1, text: DATASOURCE('rest-') },
    });
    await opened;
    const list = await lsp.client.sendRequest(CompletionRequest.type, {
      textDocument: { uri: ds },
      position: { line: 5, character: '      function: rest-'.length },
    });
    const items = Array.isArray(list) ? list : (list?.items ?? []);
    expect(items.map((i) => i.label).sort()).toEqual(['rest-get-orders', 'rest-list-customers']);
    expect(lsp.stderr()).toBe('');
    expect(await lsp.stop()).toBe(0);
  });

  test('on save, every file of the solution is checked, open or not', async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-cusomers'),
    });
    const fn = pathToFileURL(join(root, 'functions', 'rest-get-customers.platform')).href;
    const ds = pathToFileURL(join(root, 'datasources', 'customers.platform')).href;
    const lsp = await startLsp(root);
    const opened = lsp.diagnostics(fn);
    await lsp.client.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: fn, languageId: 'yaml', version: 1, text: FUNCTION },
    });
    await opened;
    const saved = lsp.diagnostics(ds);
    await lsp.client.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri: fn } });
    expect((await saved).diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_FUNCTION']);
    expect(await lsp.stop()).toBe(0);
  });
});
