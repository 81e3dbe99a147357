import { codeLenses as lensesOf } from '../../language/code-lenses.js';
import { type Feature, requireParams } from './feature.js';
import { pathOf } from './uri.js';

/** `textDocument/codeLens`: Run/Publish above a function, Sync above a datasource, Validate on solution.yaml. */
export const codeLenses: Feature = {
  capabilities: { codeLensProvider: { resolveProvider: false } },
  register({ connection, service }) {
    connection.onCodeLens((params) => {
      requireParams('textDocument/codeLens', params, ['textDocument']);
      const { textDocument } = params;
      const file = service()?.source(pathOf(textDocument.uri));
      if (!file) return [];
      return lensesOf(file).map((lens) => ({
        range: { start: { line: lens.line, character: 0 }, end: { line: lens.line, character: 0 } },
        command: { title: lens.title, command: lens.command, arguments: [...lens.arguments] },
      }));
    });
  },
};
