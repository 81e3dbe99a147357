import { MarkupKind } from 'vscode-languageserver/node';
import { hover as hoverAt } from '../../language/hover.js';
import { type Feature, requireParams } from './feature.js';
import { pathOf } from './uri.js';

/**
 * `textDocument/hover`: the service's hover as Markdown. The file's findings are computed for it
 * (the same check the server publishes), so a finding's explanation shows where it is underlined.
 */
export const hover: Feature = {
  capabilities: { hoverProvider: true },
  register({ connection, service }) {
    connection.onHover(async (params) => {
      requireParams('textDocument/hover', params, ['textDocument', 'position']);
      const { textDocument, position } = params;
      const s = service();
      if (!s) return null;
      const path = pathOf(textDocument.uri);
      const findings = s.source(path) ? ((await s.diagnostics([path])).get(path) ?? []) : [];
      const answer = hoverAt(s, path, position, findings);
      if (!answer) return null;
      return {
        contents: { kind: MarkupKind.Markdown, value: answer.markdown },
        ...(answer.range ? { range: answer.range } : {}),
      };
    });
  },
};
