import { namedActions } from '../definition/action-steps.js';
import { contextPathsRead } from '../definition/rules/context-paths.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import { closest } from '../definition/suggest.js';
import { UsageError } from '../errors/restfn-error.js';

/**
 * `restfn action -p components.name.state.valu=X` would set a value no expression reads, and the
 * action would run without it (a PATCH with no body, said done). Each `-p` path must lie on a path
 * the action reads (`@ctx.current.item` takes `-p current.item.id=7`; `@ctx.current.item.id` takes
 * `-p current=...` too), counting the actions its `onSuccess` runs. An action that hands on the
 * whole context (`$keys(@ctx)`) takes any path.
 */
export function checkActionPaths(
  solution: Solution,
  file: SourceFile<'action'>,
  pairs: readonly string[],
): void {
  const read = pathsRead(solution, file, new Set());
  if (read === undefined) return;
  // What the runtime fills (@ctx.record, @ctx.solution, ...) is not the caller's to give.
  const paths = [...read].filter((p) => !FILLED.has(p.split('.')[0]!));
  for (const pair of pairs) {
    const given = pair.slice(0, Math.max(pair.indexOf('='), 0));
    if (given === '' || paths.some((r) => onPath(given, r))) continue;
    const hint = closest(given, paths);
    const reads =
      paths.length > 0 ? `it reads ${paths.map((p) => `'${p}'`).join(', ')}` : 'it reads no @ctx value';
    throw new UsageError(
      `-p ${given}: action '${file.name}' reads nothing there${hint ? ` (did you mean '${hint}'?)` : ''}, so the value would be lost; ${reads}`,
    );
  }
}

const FILLED = new Set([
  'record',
  'entity',
  'solution',
  'parameters',
  'queries',
  'request',
  'response',
  'output',
  'error',
  'guard',
  'commandId',
  'correlationId',
]);

function pathsRead(
  solution: Solution,
  file: SourceFile<'action'>,
  seen: Set<string>,
): Set<string> | undefined {
  seen.add(file.name);
  const read = contextPathsRead(file.data);
  if (read === undefined) return undefined;
  // Actions started by name (onSuccess, execute-action) run with the same context.
  for (const { name } of file.definition ? namedActions(file.definition) : []) {
    if (seen.has(name)) continue;
    const next = solution.files.find((f) => f.kind === 'action' && f.name === name);
    if (next) {
      const more = pathsRead(solution, next as SourceFile<'action'>, seen);
      if (more === undefined) return undefined;
      for (const p of more) read.add(p);
    }
  }
  return read;
}

/** Whether one dotted path is the other or lies inside it. */
function onPath(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return long === short || long.startsWith(`${short}.`);
}
