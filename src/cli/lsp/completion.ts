import {
  type CompletionItem,
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
} from 'vscode-languageserver/node';
import type { CompletionEntry, CompletionKind } from '../../language/completion/index.js';
import { type CredentialKeys, credentialKeysOf } from './credential-keys.js';
import { type Feature, requireParams } from './feature.js';
import { pathOf } from './uri.js';

const KINDS: Readonly<Record<CompletionKind, CompletionItemKind>> = {
  function: CompletionItemKind.Function,
  key: CompletionItemKind.Property,
  value: CompletionItemKind.EnumMember,
  entity: CompletionItemKind.Struct,
  action: CompletionItemKind.Event,
  parameter: CompletionItemKind.Variable,
  credential: CompletionItemKind.Constant,
  context: CompletionItemKind.Field,
  jsonata: CompletionItemKind.Function,
  script: CompletionItemKind.Module,
  expression: CompletionItemKind.Variable,
  snippet: CompletionItemKind.Snippet,
};

/**
 * `textDocument/completion`: the service's completions as LSP items. The credential keys are read
 * here (the service does no I/O), only when a completion wants them and they are stale.
 */
export const completion: Feature = {
  capabilities: { completionProvider: { triggerCharacters: [':', ' ', '.', '$', '@', '-'] } },
  register({ connection, service }) {
    let keys: CredentialKeys | undefined;
    connection.onCompletion(async (params) => {
      requireParams('textDocument/completion', params, ['textDocument', 'position']);
      const { textDocument, position } = params;
      const s = service();
      if (!s) return [];
      if (!keys) keys = credentialKeysOf(s);
      const path = pathOf(textDocument.uri);
      keys.takeAsked();
      let found = s.completions(path, position.line, position.character);
      if (keys.takeAsked() && keys.stale()) {
        await keys.refresh();
        found = s.completions(path, position.line, position.character);
      }
      return found.map((c) => toItem(c, position));
    });
  },
};

function toItem(c: CompletionEntry, position: { line: number; character: number }): CompletionItem {
  const text = c.insertText ?? c.label;
  return {
    label: c.label,
    kind: KINDS[c.kind],
    ...(c.detail ? { detail: c.detail } : {}),
    ...(c.documentation ? { documentation: { kind: MarkupKind.Markdown, value: c.documentation } } : {}),
    ...(c.sortText ? { sortText: c.sortText } : {}),
    ...(c.snippet ? { insertTextFormat: InsertTextFormat.Snippet } : {}),
    // What is typed of the word (which may hold `-`, `.` or `$`) is replaced whole.
    ...(c.from !== undefined && c.from <= position.character
      ? {
          textEdit: {
            range: { start: { line: position.line, character: c.from }, end: position },
            newText: text,
          },
        }
      : c.insertText
        ? { insertText: text }
        : {}),
  };
}
