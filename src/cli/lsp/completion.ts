import { CompletionItemKind, MarkupKind } from 'vscode-languageserver/node';
import type { CompletionEntry } from '../../language/completion.js';
import type { Feature } from './feature.js';
import { pathOf } from './uri.js';

const KINDS: Readonly<Record<CompletionEntry['kind'], CompletionItemKind>> = {
  function: CompletionItemKind.Function,
  key: CompletionItemKind.Property,
};

/** `textDocument/completion`: the service's completions as LSP items. */
export const completion: Feature = {
  capabilities: { completionProvider: { triggerCharacters: [':', ' '] } },
  register({ connection, service }) {
    connection.onCompletion(({ textDocument, position }) => {
      const s = service();
      if (!s) return [];
      return s.completions(pathOf(textDocument.uri), position.line, position.character).map((c) => ({
        label: c.label,
        kind: KINDS[c.kind],
        ...(c.detail ? { detail: c.detail } : {}),
        ...(c.documentation ? { documentation: { kind: MarkupKind.Markdown, value: c.documentation } } : {}),
      }));
    });
  },
};
