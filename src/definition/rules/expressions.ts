import { checkSyntax } from '../../expression/compile.js';
import { CUSTOM_FUNCTIONS, JSONATA_FUNCTIONS } from '../../expression/functions.js';
import { ambiguousHyphens } from '../../expression/hyphens.js';
import { type FreeName, freeNames } from '../../expression/names.js';
import { expressionSource } from '../../expression/source.js';
import { CONTEXT_VARIABLE, MODULE_SEPARATOR } from '../../expression/translate.js';
import type { SourceFile } from '../solution.js';
import { closest, meantText } from '../suggest.js';
import type { Meant } from '../suggestion.js';
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
export function expressionSyntax(file: SourceFile, r: Reporter, known: KnownNames): void {
  walk(file.data, [], (value, path) => {
    const source = expressionSource(value, file.kind === 'function' && isAlwaysJsonata(path));
    if (!source) return;
    const failure = checkSyntax(source.body);
    if (failure) {
      r.report(failure.code, `expression does not compile: ${failure.message}`, path, {
        index: source.offset + failure.index,
      });
      return;
    }
    for (const name of freeNames(source.body)) {
      const problem = unknownName(name, known);
      if (!problem) continue;
      // The meant word's place: after the `$`, and after `module.` for a script's function.
      const meant = problem.meant && {
        ...problem.meant,
        index: source.offset + name.index + 1 + (problem.meant.index ?? 0),
      };
      r.report('UNKNOWN_NAME', problem.message, path, { index: source.offset + name.index, meant });
    }
    for (const hyphen of ambiguousHyphens(source.body))
      r.report('AMBIGUOUS_HYPHEN', hyphen.message, path, { index: source.offset + hyphen.index });
  });
}

/** The `$` names every expression of a solution may use besides its own bindings. */
export interface KnownNames {
  /** Script module name to its exported functions. */
  readonly scripts: ReadonlyMap<string, readonly string[]>;
  /** Modules that exist but did not load (reported as SCRIPT_LOAD). */
  readonly unloaded: ReadonlySet<string>;
  /** The solution's named expressions, read as `$name` too (runtime/named-expressions.ts). */
  readonly named?: ReadonlySet<string>;
}

/** Functions every expression knows: JSONata's and restfn's. */
const BUILT_IN: ReadonlySet<string> = new Set([...JSONATA_FUNCTIONS, ...CUSTOM_FUNCTIONS.map((f) => f.name)]);

/**
 * Why `$name` is unknown, and the suggestion as an edit (`index` counted from after the `$`);
 * undefined when it is known.
 */
function unknownName(
  { name, called }: FreeName,
  known: KnownNames,
): { message: string; meant?: Meant | undefined } | undefined {
  if (name === CONTEXT_VARIABLE || BUILT_IN.has(name) || known.named?.has(name)) return undefined;
  const dot = name.indexOf(MODULE_SEPARATOR);
  if (dot !== -1) {
    const module = name.slice(0, dot);
    const fn = name.slice(dot + 1);
    if (known.unloaded.has(module)) return undefined;
    const exported = known.scripts.get(module);
    if (!exported) {
      const near = closest(module, known.scripts.keys());
      return {
        message: `$${module}.${fn}(): there is no script module '${module}' (scripts/expressions/${module}.js)${meantText(near)}`,
        meant: near ? { word: module, text: near } : undefined,
      };
    }
    if (exported.includes(fn)) return undefined;
    const near = closest(fn, exported);
    return {
      message: `$${module}.${fn}(): script module '${module}' exports no function '${fn}'${meantText(near)}`,
      meant: near ? { word: fn, text: near, index: dot + 1 } : undefined,
    };
  }
  // A misspelt named expression (`$todya` for solution.yaml's `today`) is said as one.
  const named = known.named && closest(name, known.named);
  if (called) {
    const hint = named ?? closest(name, BUILT_IN);
    return {
      message: `unknown function $${name}${hint ? ` (did you mean $${hint}?)` : ''}; script functions are called as $<module>.<function>()`,
      meant: hint ? { word: name, text: hint } : undefined,
    };
  }
  if (named)
    return {
      message: `unknown variable $${name} (did you mean $${named}, solution.yaml's expression?): it is bound nowhere, so it reads nothing`,
      meant: { word: name, text: named },
    };
  return {
    message: `unknown variable $${name}: it is bound nowhere in the expression; read values through @ctx (for example @ctx.parameters.${name})`,
  };
}

/** Top-level transforms, `records` of an operation (`...operations[i].records`), a handler's `transform`. */
export function isAlwaysJsonata(path: PropertyPath): boolean {
  const key = path.at(-1);
  if (typeof key !== 'string' || !ALWAYS_JSONATA.has(key)) return false;
  if (key === 'transform') return path.length === 3 && path[0] === 'error';
  return path.length === 1 || (key === 'records' && path.at(-3) === 'operations');
}

/**
 * Calls `visit` with every string in `value` and its path. The path is one array, extended and cut
 * back as the walk goes (no array per value): `visit` must use it before it returns, as reporting does.
 */
export function walk(
  value: unknown,
  path: Array<string | number>,
  visit: (value: string, path: PropertyPath) => void,
): void {
  if (typeof value === 'string') {
    visit(value, path);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walk(value[i], path, visit);
      path.pop();
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      path.push(key);
      walk((value as Record<string, unknown>)[key], path, visit);
      path.pop();
    }
  }
}
