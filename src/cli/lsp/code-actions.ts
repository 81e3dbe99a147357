import { CodeActionKind, type Diagnostic as LspDiagnostic } from 'vscode-languageserver/node';
import { quickFixesAt } from '../../language/code-actions.js';
import { COMMANDS } from '../../language/code-lenses.js';
import { diagnosticRange } from '../../language/range.js';
import { credentialKeysOf } from './credential-keys.js';
import { type Feature, isPosition, requireParams } from './feature.js';
import { pathOf } from './uri.js';

/**
 * `textDocument/codeAction`: the service's quick fixes (did-you-mean, a missing required parameter,
 * a literal credential, and the stored credential keys in its place), each tied to the finding it fixes (the editor's own copy of it when it
 * sent one), its edits a WorkspaceEdit of the file. A fix with a terminal command to run after
 * (storing a credential) shows it through `restfn.showCommand` once the edit is made.
 */
export const codeActions: Feature = {
  capabilities: { codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] } },
  register({ connection, service }) {
    connection.onCodeAction(async (params) => {
      requireParams('textDocument/codeAction', params, ['textDocument', 'range']);
      const { textDocument, range } = params;
      const s = service();
      if (!s) return [];
      const only = Array.isArray(params.context?.only) ? params.context.only : undefined;
      if (only && !only.some((k) => typeof k === 'string' && CodeActionKind.QuickFix.startsWith(k)))
        return [];
      // The editor's copies of the findings, those with a place (a copy without one matches none).
      const given = (Array.isArray(params.context?.diagnostics) ? params.context.diagnostics : []).filter(
        (d: LspDiagnostic | undefined) => isPosition(d?.range?.start),
      );
      const path = pathOf(textDocument.uri);
      const text = s.text(path) ?? '';
      const keys = credentialKeysOf(s);
      keys.takeAsked();
      let fixes = await quickFixesAt(s, path, range);
      // A literal credential's fixes offer the stored keys: read them (never values) when stale.
      if (keys.takeAsked() && keys.stale()) {
        await keys.refresh();
        fixes = await quickFixesAt(s, path, range);
      }
      return fixes.map((fix) => {
        const own = diagnosticRange(fix.diagnostic, text);
        const sent = given.find(
          (d: LspDiagnostic) =>
            d.code === fix.diagnostic.code &&
            d.range.start.line === own.start.line &&
            d.range.start.character === own.start.character,
        );
        return {
          title: fix.title,
          kind: CodeActionKind.QuickFix,
          diagnostics: [
            sent ?? {
              range: own,
              code: fix.diagnostic.code,
              source: 'restfn',
              message: fix.diagnostic.message,
            },
          ],
          ...(fix.diagnostic.suggestion ? { isPreferred: true } : {}),
          edit: { changes: { [textDocument.uri]: [...fix.edits] } },
          ...(fix.command
            ? {
                command: {
                  title: 'Show the command to run',
                  command: COMMANDS.showCommand,
                  arguments: [fix.command],
                },
              }
            : {}),
        };
      });
    });
  },
};
