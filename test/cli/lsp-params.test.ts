import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  CodeActionRequest,
  CompletionRequest,
  DefinitionRequest,
  DocumentSymbolRequest,
  ErrorCodes,
  HoverRequest,
  ReferencesRequest,
} from 'vscode-languageserver-protocol/node';
import { DATASOURCE, FUNCTION } from '../helpers/language-solution.js';
import { openDocument, startLsp } from '../helpers/lsp-client.js';
import { tempSolution } from '../helpers/temp-solution.js';

// `restfn lsp` given requests with fields missing (as a hand-written client may send them): an
// answer or a coded InvalidParams, never an uncaught TypeError (-32603).

describe('restfn lsp: malformed requests', { timeout: 60_000 }, () => {
  test("a codeAction whose context's findings have no range still answers its fixes", async () => {
    const root = tempSolution({
      'functions/rest-get-customers.platform': FUNCTION,
      'datasources/customers.platform': DATASOURCE('rest-get-cusomers'),
    });
    const lsp = await startLsp(root);
    const ds = await openDocument(
      lsp,
      join(root, 'datasources', 'customers.platform'),
      DATASOURCE('rest-get-cusomers'),
    );
    expect(ds.diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_FUNCTION']);
    const actions = await lsp.client.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: ds.uri },
      range: ds.diagnostics[0]!.range,
      // biome-ignore lint/suspicious/noExplicitAny: a finding without its range, as the report's client sent it
      context: { diagnostics: [{ code: 'UNKNOWN_FUNCTION', message: 'x' } as any] },
    });
    expect((actions ?? []).map((a) => a.title)).toEqual([expect.stringContaining('rest-get-customers')]);
    expect(lsp.stderr()).toBe('');
    expect(await lsp.stop()).toBe(0);
  });

  test('a request without its document or position: InvalidParams with the code USAGE', async () => {
    const root = tempSolution({ 'functions/rest-get-customers.platform': FUNCTION });
    const lsp = await startLsp(root);
    const uri = (await openDocument(lsp, join(root, 'functions', 'rest-get-customers.platform'), FUNCTION))
      .uri;
    const failed = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: { code: number; message: string; data: unknown }) => ({
          code: e.code,
          message: e.message,
          data: e.data,
        }),
      );
    // biome-ignore lint/suspicious/noExplicitAny: fields left out on purpose
    const bad = (params: object) => params as any;
    expect(
      await failed(lsp.client.sendRequest(CompletionRequest.type, bad({ textDocument: { uri } }))),
    ).toEqual({
      code: ErrorCodes.InvalidParams,
      message: 'restfn lsp: textDocument/completion needs position',
      data: { code: 'USAGE' },
    });
    for (const [type, params] of [
      [HoverRequest.type, {}],
      [DefinitionRequest.type, { position: { line: 0, character: 0 } }],
      [ReferencesRequest.type, { textDocument: {} }],
      [DocumentSymbolRequest.type, {}],
      [CodeActionRequest.type, { textDocument: { uri }, context: {} }],
    ] as const) {
      // biome-ignore lint/suspicious/noExplicitAny: the request types differ
      const error = await failed(lsp.client.sendRequest(type as any, bad(params)));
      expect(error, type.method).toMatchObject({ code: ErrorCodes.InvalidParams, data: { code: 'USAGE' } });
    }
    // References without its context: an answer.
    expect(
      await lsp.client.sendRequest(
        ReferencesRequest.type,
        bad({ textDocument: { uri }, position: { line: 0, character: 0 } }),
      ),
    ).toEqual(expect.any(Array));
    expect(await lsp.stop()).toBe(0);
  });
});
