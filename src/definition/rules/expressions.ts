import { checkSyntax } from '../../expression/compile.js';
import { expressionSource } from '../../expression/source.js';
import type { SourceFile } from '../solution.js';
import type { PropertyPath } from '../yaml-file.js';
import type { Reporter } from './reporter.js';

/** Function keys that are always JSONata, with or without the leading `=`. */
const ALWAYS_JSONATA = new Set([
  'inputTransform',
  'outputTransform',
  'records',
  'errorTransform',
  'transform',
]);

/**
 * Compiles every expression in a file, valid or not against the schema, so syntax errors show up
 * together with schema errors. Failures point at the character JSONata stopped at.
 */
export function expressionSyntax(file: SourceFile, r: Reporter): void {
  walk(file.data, [], (value, path) => {
    const source = expressionSource(value, file.kind === 'function' && isAlwaysJsonata(path));
    if (!source) return;
    const failure = checkSyntax(source.body);
    if (failure) {
      r.report('EXPRESSION_SYNTAX', `expression does not compile: ${failure.message}`, path, {
        index: source.offset + failure.index,
      });
    }
  });
}

/** Top-level transforms, `records` of an operation (`...operations[i].records`), a handler's `transform`. */
function isAlwaysJsonata(path: PropertyPath): boolean {
  const key = path.at(-1);
  if (typeof key !== 'string' || !ALWAYS_JSONATA.has(key)) return false;
  if (key === 'transform') return path.length === 3 && path[0] === 'error';
  return path.length === 1 || (key === 'records' && path.at(-3) === 'operations');
}

function walk(value: unknown, path: PropertyPath, visit: (value: string, path: PropertyPath) => void): void {
  if (typeof value === 'string') {
    visit(value, path);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      walk(item, [...path, Array.isArray(value) ? Number(key) : key], visit);
  }
}
