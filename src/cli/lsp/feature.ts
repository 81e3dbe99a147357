import {
  type Connection,
  ErrorCodes,
  ResponseError,
  type ServerCapabilities,
  type TextDocuments,
} from 'vscode-languageserver/node';
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
  /**
   * Reads the disk again for the solution's files not open in the editor (new, changed, deleted),
   * drops open documents without unsaved changes whose file is gone; returns the paths whose
   * findings may have changed.
   */
  refresh(): Set<string>;
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

/**
 * Throws, when a request lacks what a feature reads (`textDocument.uri`, a `position`, a `range`),
 * an InvalidParams error whose `data.code` is USAGE (vscode-jsonrpc answers a thrown ResponseError
 * as it is): a malformed request is answered so, never with a TypeError's text.
 */
export function requireParams(
  method: string,
  params: unknown,
  needs: ReadonlyArray<'textDocument' | 'position' | 'range'>,
): void {
  const p = (params ?? {}) as Record<string, unknown>;
  const missing = needs.filter((need) => {
    if (need === 'textDocument') return typeof (p.textDocument as { uri?: unknown })?.uri !== 'string';
    if (need === 'position') return !isPosition(p.position);
    const range = p.range as { start?: unknown; end?: unknown } | undefined;
    return !isPosition(range?.start) || !isPosition(range?.end);
  });
  if (missing.length === 0) return;
  const named = missing.map((m) => (m === 'textDocument' ? 'textDocument.uri' : m));
  throw new ResponseError(ErrorCodes.InvalidParams, `restfn lsp: ${method} needs ${named.join(' and ')}`, {
    code: 'USAGE',
  });
}

/** `{ line, character }`, both numbers. */
export function isPosition(value: unknown): value is { line: number; character: number } {
  const v = value as { line?: unknown; character?: unknown } | null | undefined;
  return typeof v?.line === 'number' && typeof v.character === 'number';
}
