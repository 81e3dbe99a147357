import type { Connection, ServerCapabilities, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { LanguageService } from '../../language/service.js';

/** What a feature of `restfn lsp` is given: the connection, the open documents, the service. */
export interface FeatureContext {
  readonly connection: Connection;
  readonly documents: TextDocuments<TextDocument>;
  /** The language service; undefined before `initialize`. */
  service(): LanguageService | undefined;
  /** Re-checks these files (absolute paths) now and publishes their findings. */
  publish(paths: Iterable<string>): void;
}

/**
 * One LSP feature of `restfn lsp` (completion, hover, ...): the capabilities it announces at
 * `initialize`, and the handlers it registers. The logic is the language service's (src/language/);
 * a feature only turns its answers into LSP's shapes. Listed in features.ts.
 */
export interface Feature {
  readonly capabilities: ServerCapabilities;
  register(context: FeatureContext): void;
}
