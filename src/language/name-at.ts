import type { SourceFile } from '../definition/solution.js';
import { type NameKind, namesIn } from './names.js';
import { contains, nodeAt, type TextPosition } from './position.js';
import type { TextRange } from './range.js';
import { moduleName, scriptDeclarations } from './scripts.js';
import type { LanguageService } from './service.js';

/**
 * What a position names: a function, an action, a datasource, a script function (`module.fn`), or
 * (`module`) a whole script module; with the range of the name written there.
 */
export interface Named {
  readonly kind: NameKind;
  readonly name: string;
  /** A script module as a whole (`name` is the module's). */
  readonly module?: boolean;
  readonly range?: TextRange;
}

/**
 * The name at a position of a file: a place the file names something (names.ts), a function file's
 * own `functionId`, a script's declaration. A file the schema rejects still names a function after
 * `function:` and an action after `options.action:` (read from the key), so an edit in progress
 * keeps its hover and definition.
 */
export function nameAt(service: LanguageService, path: string, position: TextPosition): Named | undefined {
  if (service.kindOf(path) === 'script') {
    const text = service.text(path) ?? '';
    const found = scriptDeclarations(text).find((d) => contains(d.range, position));
    return found
      ? { kind: 'script', name: `${moduleName(path)}.${found.name}`, range: found.range }
      : undefined;
  }
  const file = service.source(path);
  if (!file) return undefined;
  const site = namesIn(file).find((s) => contains(s.range, position));
  if (site) return { kind: site.kind, name: site.name, range: site.range };
  const node = nodeAt(file.yaml.doc, file.yaml.text, position);
  if (node?.on !== 'value' || typeof node.value !== 'string') return undefined;
  const key = node.path.at(-1);
  if (file.kind === 'function' && node.path.length === 1 && key === 'functionId')
    return { kind: 'function', name: file.name, range: node.range };
  if (key === 'function' && file.kind !== 'solution')
    return { kind: 'function', name: node.value, range: node.range };
  if (key === 'action' && node.path.at(-2) === 'options' && file.kind === 'action')
    return { kind: 'action', name: node.value, range: node.range };
  return undefined;
}

/**
 * What a file defines, wherever in it the position is: a function file its function, an action or
 * datasource file itself, a script its module.
 */
export function definedBy(service: LanguageService, path: string): Named | undefined {
  const kind = service.kindOf(path);
  if (kind === 'script') return { kind: 'script', name: moduleName(path), module: true };
  const file: SourceFile | undefined = service.source(path);
  if (!file || file.kind === 'solution') return undefined;
  return { kind: file.kind, name: file.name };
}
