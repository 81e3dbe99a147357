import type { Location as LspLocation } from 'vscode-languageserver/node';
import type { Location } from '../../language/definition.js';
import { definition } from '../../language/definition.js';
import { references } from '../../language/references.js';
import { type Feature, requireParams } from './feature.js';
import { pathOf, uriOf } from './uri.js';

/** `textDocument/definition` and `textDocument/references`: the service's places as LSP locations. */
export const navigation: Feature = {
  capabilities: { definitionProvider: true, referencesProvider: true },
  register({ connection, service }) {
    connection.onDefinition((params) => {
      requireParams('textDocument/definition', params, ['textDocument', 'position']);
      const { textDocument, position } = params;
      const s = service();
      return s ? definition(s, pathOf(textDocument.uri), position).map(toLsp) : [];
    });
    connection.onReferences((params) => {
      requireParams('textDocument/references', params, ['textDocument', 'position']);
      const { textDocument, position, context } = params;
      const s = service();
      return s
        ? references(s, pathOf(textDocument.uri), position, context?.includeDeclaration === true).map(toLsp)
        : [];
    });
  },
};

function toLsp(location: Location): LspLocation {
  return { uri: uriOf(location.path), range: location.range };
}
