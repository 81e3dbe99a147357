import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  CompletionRequest,
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidSaveTextDocumentNotification,
  ExecuteCommandRequest,
  FileChangeType,
} from 'vscode-languageserver-protocol/node';
import { runCli } from '../helpers/cli.js';
import { DATASOURCE, FUNCTION } from '../helpers/language-solution.js';
import { type LspClient, openDocument, startLsp } from '../helpers/lsp-client.js';
import { tempSolution } from '../helpers/temp-solution.js';

// `restfn lsp` and the disk: files created, changed, renamed or deleted outside the editor (a
// terminal's `restfn new`, Neovim's `:saveas`) are seen, through file watching or on save/Validate.

async function functionNames(lsp: LspClient, uri: string): Promise<string[]> {
  const list = await lsp.client.sendRequest(CompletionRequest.type, {
    textDocument: { uri },
    position: { line: 5, character: '      function: '.length },
  });
  const items = Array.isArray(list) ? list : (list?.items ?? []);
  return items.map((i) => i.label).filter((l) => l.startsWith('rest-'));
}

describe('restfn lsp: the disk', { timeout: 60_000 }, () => {
  test('registers file watching when the editor can; a file created on disk clears the finding and is completed', async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-all-customers'),
    });
    const lsp = await startLsp(root, {
      capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
    });
    const registrations = await lsp.registrations();
    expect(registrations.map((r) => [r.method, r.registerOptions])).toEqual([
      [
        'workspace/didChangeWatchedFiles',
        {
          watchers: [
            { globPattern: '**/*.platform' },
            { globPattern: '**/solution.yaml' },
            { globPattern: '**/scripts/expressions/*.js' },
          ],
        },
      ],
    ]);
    const ds = join(root, 'datasources', 'customers.platform');
    const opened = await openDocument(lsp, ds, DATASOURCE('rest-all-customers'));
    expect(opened.diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_FUNCTION']);
    expect(await functionNames(lsp, opened.uri)).toEqual(['rest-get-customers']);

    const created = join(root, 'functions', 'rest-all-customers.platform');
    writeFileSync(created, FUNCTION);
    const cleared = lsp.diagnostics(opened.uri, (p) => p.diagnostics.length === 0);
    // A uri that is no local path (another host) is skipped; the rest of the batch still counts.
    await lsp.client.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [
        { uri: 'file://host/functions/x.platform', type: FileChangeType.Created },
        { uri: pathToFileURL(created).href, type: FileChangeType.Created },
      ],
    });
    await cleared;
    expect((await functionNames(lsp, opened.uri)).sort()).toEqual([
      'rest-all-customers',
      'rest-get-customers',
    ]);

    // Deleted: the finding is back.
    rmSync(created);
    const back = lsp.diagnostics(opened.uri, (p) => p.diagnostics.length > 0);
    await lsp.client.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [{ uri: pathToFileURL(created).href, type: FileChangeType.Deleted }],
    });
    expect((await back).diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_FUNCTION']);
    expect(lsp.stderr()).toBe('');
    expect(await lsp.stop()).toBe(0);
  });

  test('an editor watching nothing: a file created on disk is seen on save', async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-all-customers'),
    });
    const lsp = await startLsp(root);
    const ds = join(root, 'datasources', 'customers.platform');
    const opened = await openDocument(lsp, ds, DATASOURCE('rest-all-customers'));
    expect(opened.diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_FUNCTION']);
    writeFileSync(join(root, 'functions', 'rest-all-customers.platform'), FUNCTION);
    const saved = lsp.diagnostics(opened.uri);
    await lsp.client.sendNotification(DidSaveTextDocumentNotification.type, {
      textDocument: { uri: opened.uri },
    });
    expect((await saved).diagnostics).toEqual([]);
    expect((await functionNames(lsp, opened.uri)).sort()).toEqual([
      'rest-all-customers',
      'rest-get-customers',
    ]);
    expect(await lsp.stop()).toBe(0);
  });

  test("a file renamed outside the editor (Neovim's :saveas, no didClose): Validate agrees with restfn validate", async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-customers'),
    });
    const lsp = await startLsp(root);
    const oldPath = join(root, 'functions', 'rest-get-customers.platform');
    const fn = await openDocument(lsp, oldPath, FUNCTION);
    const ds = await openDocument(
      lsp,
      join(root, 'datasources', 'customers.platform'),
      DATASOURCE('rest-get-customers'),
    );
    expect(ds.diagnostics).toEqual([]);
    // :saveas writes the new file and opens it; the old file is deleted from a terminal.
    const newPath = join(root, 'functions', 'rest-list-customers.platform');
    renameSync(oldPath, newPath);
    await openDocument(lsp, newPath, FUNCTION);

    const flagged = lsp.diagnostics(ds.uri);
    const oldCleared = lsp.diagnostics(fn.uri);
    const answer = await lsp.client.sendRequest(ExecuteCommandRequest.type, {
      command: 'restfn.validate',
      arguments: [],
    });
    const cli = await runCli(['validate', '--format', 'json'], { cwd: root });
    const expected = JSON.parse(cli.stdout).diagnostics as Array<{ code: string }>;
    expect(expected.map((d) => d.code)).toEqual(['UNKNOWN_FUNCTION']);
    expect(answer).toEqual({ files: 2, errors: 1, warnings: 0 });
    expect((await flagged).diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_FUNCTION']);
    expect((await oldCleared).diagnostics).toEqual([]);
    expect(await functionNames(lsp, ds.uri)).toEqual(['rest-list-customers']);
    expect(await lsp.stop()).toBe(0);
  });

  test('an open document with unsaved changes is kept when its file is gone', async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-customers'),
    });
    const lsp = await startLsp(root);
    const path = join(root, 'functions', 'rest-get-customers.platform');
    const fn = await openDocument(lsp, path, FUNCTION);
    const changed = lsp.diagnostics(fn.uri);
    await lsp.client.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri: fn.uri, version: 2 },
      contentChanges: [{ text: `${FUNCTION}# edited\n` }],
    });
    await changed;
    rmSync(path);
    const answer = await lsp.client.sendRequest(ExecuteCommandRequest.type, {
      command: 'restfn.validate',
      arguments: [],
    });
    expect(answer).toEqual({ files: 2, errors: 0, warnings: 0 });
    expect(await lsp.stop()).toBe(0);
  });
});
