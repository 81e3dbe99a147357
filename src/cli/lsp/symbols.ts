import { type DocumentSymbol, SymbolKind } from 'vscode-languageserver/node';
import { documentSymbols, type OutlineKind, type OutlineSymbol } from '../../language/symbols.js';
import { type Feature, requireParams } from './feature.js';
import { pathOf } from './uri.js';

const KINDS: Readonly<Record<OutlineKind, SymbolKind>> = {
  function: SymbolKind.Function,
  method: SymbolKind.Method,
  namespace: SymbolKind.Namespace,
  property: SymbolKind.Property,
  variable: SymbolKind.Variable,
  event: SymbolKind.Event,
  array: SymbolKind.Array,
  string: SymbolKind.String,
  operator: SymbolKind.Operator,
  object: SymbolKind.Object,
  field: SymbolKind.Field,
};

/** `textDocument/documentSymbol`: the service's outline as hierarchical DocumentSymbols. */
export const symbols: Feature = {
  capabilities: { documentSymbolProvider: true },
  register({ connection, service }) {
    connection.onDocumentSymbol((params) => {
      requireParams('textDocument/documentSymbol', params, ['textDocument']);
      const { textDocument } = params;
      const file = service()?.source(pathOf(textDocument.uri));
      return file ? documentSymbols(file).map(toLsp) : [];
    });
  },
};

function toLsp(symbol: OutlineSymbol): DocumentSymbol {
  return {
    name: symbol.name,
    ...(symbol.detail ? { detail: symbol.detail } : {}),
    kind: KINDS[symbol.kind],
    range: symbol.range,
    selectionRange: symbol.selectionRange,
    children: symbol.children.map(toLsp),
  };
}
