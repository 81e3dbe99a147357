import type { Location as LspLocation } from 'vscode-languageserver/node';
import type { Location } from '../../language/definition.js';
import { definition } from '../../language/definition.js';
import { references } from '../../language/references.js';
import type { Feature } from './feature.js';
import { pathOf, uriOf } from './uri.js';

/** `textDocument/definition` and `textDocument/references`: the service's places as LSP locations. */
export const navigation: Feature = {
  capabilities: { definitionProvider: true, referencesProvider: true },
  register({ connection, service }) {
    connection.onDefinition(({ textDocument, position }) => {
      const s = service();
      return s ? definition(s, pathOf(textDocument.uri), position).map(toLsp) : [];
    });
    connection.onReferences(({ textDocument, position, context }) => {
      const s = service();
      return s
        ? references(s, pathOf(textDocument.uri), position, context.includeDeclaration).map(toLsp)
        : [];
    });
  },
};

function toLsp(location: Location): LspLocation {
  return { uri: uriOf(location.path), range: location.range };
}
