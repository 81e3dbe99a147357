import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  DefinitionRequest,
  type DocumentSymbol,
  DocumentSymbolRequest,
  HoverRequest,
  type Location,
  ReferencesRequest,
} from 'vscode-languageserver-protocol/node';
import { startLsp } from '../helpers/lsp-client.js';
import { NAVIGATION_SOLUTION as FILES, rangeOfWord, where } from '../helpers/navigation-solution.js';
import { tempSolution } from '../helpers/temp-solution.js';

// Hover, definition, references and the outline through `restfn lsp` as an editor runs it.

describe('restfn lsp: navigation', { timeout: 60_000 }, () => {
  test('hover, definition in another file, references across three files, the outline of a function', async () => {
    const root = tempSolution(FILES);
    const uri = (p: string) => pathToFileURL(join(root, p)).href;
    const lsp = await startLsp(root);
    const ds = 'datasources/open-tasks.platform';
    const onName = {
      line: where(FILES[ds]!, 'rest-get-tasks').line,
      character: where(FILES[ds]!, 'rest-get-tasks').character + 3,
    };

    // Files not opened are read from the disk.
    const hover = await lsp.client.sendRequest(HoverRequest.type, {
      textDocument: { uri: uri(ds) },
      position: onName,
    });
    expect(hover?.contents).toEqual({
      kind: 'markdown',
      value: expect.stringContaining(
        '**function `rest-get-tasks`** `GET https://api.example.com/tasks?api_key=***&view=full`',
      ),
    });
    expect(JSON.stringify(hover)).not.toContain('abc123');
    expect((hover!.contents as { value: string }).value).toContain('| `lists` | string | query | yes |  |');

    const definition = await lsp.client.sendRequest(DefinitionRequest.type, {
      textDocument: { uri: uri('datasources/task-lists.platform') },
      position: where(FILES['datasources/task-lists.platform']!, 'rest-get-task-lists'),
    });
    expect(definition).toEqual([
      {
        uri: uri('functions/lists.platform'),
        range: rangeOfWord(FILES['functions/lists.platform']!, 'rest-get-task-lists'),
      },
    ]);

    const fn = 'functions/rest-get-tasks.platform';
    const refs = (await lsp.client.sendRequest(ReferencesRequest.type, {
      textDocument: { uri: uri(fn) },
      position: where(FILES[fn]!, 'outputTransform'),
      context: { includeDeclaration: false },
    })) as Location[];
    expect(refs).toEqual([
      {
        uri: uri('functions/lists.platform'),
        range: rangeOfWord(FILES['functions/lists.platform']!, 'rest-get-tasks'),
      },
      { uri: uri(ds), range: rangeOfWord(FILES[ds]!, 'rest-get-tasks') },
      {
        uri: uri('actions/refresh.platform'),
        range: rangeOfWord(FILES['actions/refresh.platform']!, 'rest-get-tasks'),
      },
    ]);

    const outline = (await lsp.client.sendRequest(DocumentSymbolRequest.type, {
      textDocument: { uri: uri(fn) },
    })) as DocumentSymbol[];
    expect(outline.map((s) => s.name)).toEqual([
      'provider',
      'GET https://api.example.com/tasks?api_key=***&view=full',
      'parameters',
      'records',
      'outputTransform',
      'error',
      'operations',
    ]);
    expect(outline[2]!.children!.map((s) => [s.name, s.detail, s.kind])).toEqual([
      ['lists', 'string, query, required', 13],
      ['pageSize', 'int, query', 13],
    ]);
    expect(outline[2]!.selectionRange).toEqual(rangeOfWord(FILES[fn]!, 'parameters'));
    expect(lsp.stderr()).toBe('');
    expect(await lsp.stop()).toBe(0);
  });

  test("an open file's edits count: hover on a key, and on a finding of the edited text", async () => {
    const root = tempSolution(FILES);
    const lsp = await startLsp(root);
    const fn = join(root, 'functions', 'rest-get-tasks.platform');
    const uri = pathToFileURL(fn).href;
    const edited = FILES['functions/rest-get-tasks.platform']!.replace(
      'method: GET',
      'method: GET\nuseLocalCall: true',
    );
    const found = lsp.diagnostics(uri);
    await lsp.client.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'yaml', version: 1, text: edited },
    });
    const codes = (await found).diagnostics.map((d) => d.code);
    expect(codes).toContain('LITERAL_CREDENTIAL');
    const key = await lsp.client.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: where(edited, 'useLocalCall'),
    });
    expect((key!.contents as { value: string }).value).toBe(
      '**`useLocalCall`** · boolean\n\nThe device calls the remote service directly (OAuth only).',
    );
    expect(key?.range).toEqual(rangeOfWord(edited, 'useLocalCall'));
    const onFinding = await lsp.client.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: where(edited, 'https'),
    });
    expect((onFinding!.contents as { value: string }).value).toContain('**LITERAL_CREDENTIAL** (warning)');
    expect(await lsp.stop()).toBe(0);
  });
});
