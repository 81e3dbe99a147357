import { type Named, nameAt } from './name-at.js';
import { solutionNames } from './names.js';
import { rangeFrom, type TextPosition } from './position.js';
import type { TextRange } from './range.js';
import { moduleName, scriptDeclarations } from './scripts.js';
import type { LanguageService } from './service.js';

/** A place in a file of the solution (absolute path). */
export interface Location {
  readonly path: string;
  readonly range: TextRange;
}

const START: TextRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/**
 * Go to definition: where the name at a position is defined. A function's file (at its
 * `functionId` when it has one, else its first line), an action's or a datasource's file, a script
 * function's declaration in `scripts/expressions/<module>.js`, a local table's entries in the
 * datasources listing it. Nothing when it names nothing there is.
 */
export function definition(service: LanguageService, path: string, position: TextPosition): Location[] {
  const named = nameAt(service, path, position);
  if (named?.kind === 'entity') return entityDeclarations(service, named.name);
  const found = named && declaration(service, named);
  return found ? [found] : [];
}

/** The datasources' entries listing a local table (several datasources may read one table). */
export function entityDeclarations(service: LanguageService, name: string): Location[] {
  return solutionNames(service.solution()).flatMap(({ file, sites }) =>
    sites
      .filter((s) => s.declares && s.kind === 'entity' && s.name === name)
      .map((s) => ({ path: file.path, range: s.range })),
  );
}

/** Where a name is defined, if the solution defines it. */
export function declaration(service: LanguageService, named: Named): Location | undefined {
  const solution = service.solution();
  if (named.kind === 'entity') return entityDeclarations(service, named.name)[0];
  if (named.kind === 'function') {
    const file = solution.functions.get(named.name);
    if (!file) return undefined;
    const id = (file.data as { functionId?: unknown } | null | undefined)?.functionId;
    if (typeof id !== 'string' || id === '') return { path: file.path, range: START };
    return { path: file.path, range: rangeFrom(file.yaml.locate(['functionId']), id.length) };
  }
  if (named.kind === 'action' || named.kind === 'datasource') {
    const file = solution.files.find((f) => f.kind === named.kind && f.name === named.name);
    return file && { path: file.path, range: START };
  }
  const [module, fn] = named.module ? [named.name, undefined] : splitScript(named.name);
  for (const [scriptPath, text] of service.scriptTexts()) {
    if (moduleName(scriptPath) !== module) continue;
    if (fn === undefined) return { path: scriptPath, range: START };
    const declared = scriptDeclarations(text).find((d) => d.name === fn);
    return declared && { path: scriptPath, range: declared.range };
  }
  return undefined;
}

/** `module.fn` as its module and function. */
export function splitScript(name: string): [string, string] {
  const dot = name.indexOf('.');
  return [name.slice(0, dot), name.slice(dot + 1)];
}
