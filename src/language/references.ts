import { declaration, type Location, splitScript } from './definition.js';
import { definedBy, type Named, nameAt } from './name-at.js';
import { solutionNames } from './names.js';
import type { TextPosition } from './position.js';
import type { LanguageService } from './service.js';

/**
 * Find references: every place the solution's files name what is at a position: the name written
 * there, else what the file defines (a function file anywhere in it, an action, a datasource, a
 * script module). Read from the parsed files (names.ts), never their text: a comment or a string
 * literal mentioning a name is no reference. With `includeDeclaration`, the definition comes first.
 */
export function references(
  service: LanguageService,
  path: string,
  position: TextPosition,
  includeDeclaration: boolean,
): Location[] {
  const named = nameAt(service, path, position) ?? definedBy(service, path);
  if (!named) return [];
  const found: Location[] = [];
  // A table is declared by the datasources listing it: those places are among the sites.
  const declared = includeDeclaration && named.kind !== 'entity' ? declaration(service, named) : undefined;
  if (declared) found.push(declared);
  for (const { file, sites } of solutionNames(service.solution()))
    for (const site of sites)
      if (names(named, site) && (includeDeclaration || !site.declares))
        found.push({ path: file.path, range: site.range });
  return found;
}

function names(named: Named, site: { kind: string; name: string }): boolean {
  if (site.kind !== named.kind) return false;
  if (named.module) return splitScript(site.name)[0] === named.name;
  return site.name === named.name;
}
