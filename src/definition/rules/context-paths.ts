import { expressionSource } from '../../expression/source.js';
import type { Solution, SourceFile } from '../solution.js';
import { closest, meantText } from '../suggest.js';
import { declaredActionParameters } from './actions.js';
import { isAlwaysJsonata, walk } from './expressions.js';
import type { FunctionRule, Reporter } from './reporter.js';

/** What `@ctx` holds (conventions.md), by the names an expression reads first. */
const TOP = [
  'parameters',
  'queries',
  'guard',
  'request',
  'response',
  'output',
  'error',
  'entity',
  'commandId',
  'correlationId',
  'user',
  'solution',
  'record',
  'jig',
  'components',
  'current',
  'datasources',
  'organization',
  'system',
  'expressions',
  'action',
  'inputs',
];
const INSIDE: Readonly<Record<string, readonly string[]>> = {
  response: ['ok', 'status', 'statusText', 'headers', 'body'],
  request: ['method', 'url', 'headers', 'body'],
  solution: ['id', 'name', 'title', 'settings'],
  organization: ['id', 'name'],
  system: ['timezone', 'locale', 'isOffline', 'isOnline'],
  error: ['name', 'message'],
  guard: ['output', 'error'],
};

/**
 * `@ctx.a.b.c.d` or `@.a.b...` (the names after it), outside string literals; a hyphen between name
 * characters is part of the name in @ctx paths (`@ctx.queries.current-record`: translate.ts).
 */
const PATH = /@(?:ctx)?((?:\.[A-Za-z_$](?:[\w$]|-(?=[A-Za-z0-9_]))*){1,4})/g;

/**
 * `@ctx` paths with a typo (`@ctx.respnse.status`, `@ctx.paramters.id`, a `settings.custom` key
 * solution.yaml does not have, a parameter the function does not declare) read nothing, and the
 * value just vanishes: said here, with the closest known name. A caller's screen context may add
 * names of its own, so an unknown first name is reported only when it is close to a known one.
 */
export const contextPaths: FunctionRule = (file, r, solution) => {
  const definition = file.definition;
  const parameters = [
    ...Object.keys(definition.parameters ?? {}),
    ...Object.keys(definition.continuation?.parameters ?? {}),
  ];
  // Without a solution.yaml (a lone folder of functions) its settings are unknown, not empty.
  const custom = solution.settings
    ? Object.keys(solution.settings.definition?.settings?.custom ?? {})
    : undefined;
  const named = solution.settings ? Object.keys(solution.settings.definition?.expressions ?? {}) : undefined;
  walk(file.data, [], (value, path) => {
    const source = expressionSource(value, isAlwaysJsonata(path));
    if (!source) return;
    for (const { names, index } of contextReads(source.body)) {
      const problem = problemOf(names, parameters, custom) ?? unknownNamed(names, named);
      if (problem)
        r.report('CONTEXT_PATH', problem.message, path, {
          index: source.offset + index,
          meant: meantStep(source.body, source.offset, index, names, problem),
        });
    }
  });
};

/** What a path's problem is, and the name at `step` of it that is meant to be `hint`. */
interface PathProblem {
  readonly message: string;
  readonly step?: number;
  readonly hint?: string | undefined;
}

/** The misspelt name of a path as an edit: its place in the value, after `@ctx.` or `@.` and the names before it. */
function meantStep(
  body: string,
  offset: number,
  index: number,
  names: readonly string[],
  problem: PathProblem,
) {
  if (problem.step === undefined || !problem.hint) return undefined;
  let at = index + (body.startsWith('@ctx.', index) ? 5 : 2);
  for (const name of names.slice(0, problem.step)) at += name.length + 1;
  return { word: names[problem.step]!, text: problem.hint, index: offset + at };
}

function problemOf(
  names: readonly string[],
  /** The function's parameters; undefined outside a function file (nothing to check them against). */
  parameters: readonly string[] | undefined,
  custom: readonly string[] | undefined,
  /** An action file's declared parameters; undefined where there are none to hold `@ctx.action.parameters` to. */
  actionParameters?: readonly string[],
): PathProblem | undefined {
  const [first, second, third, fourth] = names;
  if (first === undefined) return undefined;
  if (!TOP.includes(first)) {
    const hint = closest(first, TOP);
    return hint
      ? {
          message: `@ctx.${first} is not in the context (did you mean @ctx.${hint}?): it reads nothing`,
          step: 0,
          hint,
        }
      : undefined;
  }
  if (second === undefined) return undefined;
  if (parameters && first === 'parameters' && !parameters.includes(second)) {
    const hint = closest(second, parameters);
    return {
      message: `@ctx.parameters.${second}: the function has no parameter '${second}'${hint ? ` (did you mean '${hint}'?)` : ''}, so it reads nothing`,
      step: 1,
      hint,
    };
  }
  if (
    actionParameters &&
    first === 'action' &&
    second === 'parameters' &&
    third !== undefined &&
    !actionParameters.includes(third)
  ) {
    const hint = closest(third, actionParameters);
    return {
      message: `@ctx.action.parameters.${third}: the action declares no parameter '${third}'${hint ? ` (did you mean '${hint}'?)` : ` (it declares ${actionParameters.join(', ') || 'none'})`}, so it reads nothing`,
      step: 2,
      hint,
    };
  }
  const inside = INSIDE[first];
  if (inside && !inside.includes(second)) {
    const hint = closest(second, inside);
    return {
      message: `@ctx.${first}.${second} is not there${hint ? ` (did you mean @ctx.${first}.${hint}?)` : ` (it holds ${inside.join(', ')})`}`,
      step: 1,
      hint,
    };
  }
  if (custom && first === 'solution' && second === 'settings' && third === 'custom' && fourth !== undefined) {
    if (!custom.includes(fourth)) {
      const hint = closest(fourth, custom);
      return {
        message: `@ctx.solution.settings.custom.${fourth}: solution.yaml has no settings.custom.${fourth}${hint ? ` (did you mean '${hint}'?)` : ''}, so it reads nothing`,
        step: 3,
        hint,
      };
    }
  }
  return undefined;
}

/**
 * The same checks in datasources, actions and solution.yaml (no function's parameters to hold
 * `@ctx.parameters` to there): a misspelt first name, the fixed parts (`@ctx.system.timezon`),
 * `settings.custom` keys and named expressions; in an action file declaring its parameters,
 * `@ctx.action.parameters.<name>` held to them.
 */
export function contextPathsOutsideFunctions(file: SourceFile, r: Reporter, solution: Solution): void {
  if (file.kind === 'function') return;
  const custom = solution.settings
    ? Object.keys(solution.settings.definition?.settings?.custom ?? {})
    : undefined;
  const named = solution.settings ? Object.keys(solution.settings.definition?.expressions ?? {}) : undefined;
  const actionParameters = declaredActionParameters(file);
  walk(file.data, [], (value, path) => {
    const source = expressionSource(value, false);
    if (!source) return;
    for (const { names, index } of contextReads(source.body)) {
      const problem = problemOf(names, undefined, custom, actionParameters) ?? unknownNamed(names, named);
      if (problem)
        r.report('CONTEXT_PATH', problem.message, path, {
          index: source.offset + index,
          meant: meantStep(source.body, source.offset, index, names, problem),
        });
    }
  });
}

/** `@ctx.expressions.<name>` with a name solution.yaml's `expressions` does not have. */
function unknownNamed(
  names: readonly string[],
  named: readonly string[] | undefined,
): PathProblem | undefined {
  const [first, second] = names;
  if (!named || first !== 'expressions' || second === undefined || named.includes(second)) return undefined;
  const hint = closest(second, named);
  return {
    message: `@ctx.expressions.${second}: solution.yaml has no expression '${second}'${meantText(hint)}, so it reads nothing`,
    step: 1,
    hint,
  };
}

/**
 * Every `@ctx` path the expressions in `data` (a file's parsed YAML) read, as dotted text (at most
 * four names deep), or `undefined` when one of them reads the context as a whole (`$keys(@ctx)`):
 * then any path may be read.
 */
export function contextPathsRead(data: unknown): Set<string> | undefined {
  const paths = new Set<string>();
  let whole = false;
  walk(data, [], (value, path) => {
    const source = expressionSource(value, isAlwaysJsonata(path));
    if (!source) return;
    if (WHOLE.test(source.body)) whole = true;
    for (const { names } of contextReads(source.body)) paths.add(names.join('.'));
  });
  return whole ? undefined : paths;
}

/** `@ctx` or `@` not followed by a name: the whole context handed on. */
const WHOLE = /@(?:ctx)?(?![.\w$])/;

/** Every `@ctx` read in an expression, outside its string literals: the names and where it starts. */
export function contextReads(body: string): Array<{ names: string[]; index: number }> {
  const found: Array<{ names: string[]; index: number }> = [];
  // Most expressions read no context: nothing to scan for, and no literals to find.
  if (!body.includes('@')) return found;
  let literal: ((index: number) => boolean) | undefined;
  for (const match of body.matchAll(PATH)) {
    literal ??= stringLiterals(body);
    if (literal(match.index)) continue;
    found.push({ names: match[1]!.slice(1).split('.'), index: match.index });
  }
  return found;
}

/** Whether a character of `body` is inside a '...', "..." or `...` literal. */
function stringLiterals(body: string): (index: number) => boolean {
  const inside: boolean[] = [];
  let quote: string | undefined;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    inside.push(quote !== undefined);
    if (quote) {
      if (c === '\\') {
        inside.push(true);
        i++;
      } else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
  }
  return (index) => inside[index] === true;
}
