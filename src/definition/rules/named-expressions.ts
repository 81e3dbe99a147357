import { expressionSource } from '../../expression/source.js';
import type { Solution, SourceFile } from '../solution.js';
import { closest, meantText } from '../suggest.js';
import { contextReads } from './context-paths.js';
import type { Reporter } from './reporter.js';

/**
 * solution.yaml's named expressions (`expressions:`): one that reads a name solution.yaml does not
 * define reads nothing (CONTEXT_PATH), and names that read each other in a circle could never give
 * a value (NAMED_EXPRESSION_CYCLE, reported at each name of the circle).
 */
export function namedExpressions(file: SourceFile, r: Reporter, solution: Solution): void {
  if (file.kind !== 'solution' || file !== solution.settings) return;
  const sources = (file as SourceFile<'solution'>).definition?.expressions;
  if (!sources) return;
  const names = Object.keys(sources);
  const reads = new Map<string, string[]>();
  for (const [name, raw] of Object.entries(sources)) {
    const source = typeof raw === 'string' ? expressionSource(raw) : undefined;
    const read: string[] = [];
    for (const { names: path, index } of source ? contextReads(source.body) : []) {
      if (path[0] !== 'expressions' || path[1] === undefined) continue;
      if (Object.hasOwn(sources, path[1])) read.push(path[1]);
      else {
        const near = closest(path[1], names);
        const step = index + (source!.body.startsWith('@ctx.', index) ? 5 : 2) + 'expressions.'.length;
        r.report(
          'CONTEXT_PATH',
          `@ctx.expressions.${path[1]}: solution.yaml has no expression '${path[1]}'${meantText(near)}, so it reads nothing`,
          ['expressions', name],
          {
            index: source!.offset + index,
            meant: near ? { word: path[1], text: near, index: source!.offset + step } : undefined,
          },
        );
      }
    }
    reads.set(name, read);
  }
  for (const name of names) {
    const circle = circleFrom(name, reads);
    if (circle)
      r.report(
        'NAMED_EXPRESSION_CYCLE',
        `named expressions read each other in a circle: ${circle.join(' -> ')}; break it (a name cannot need its own value)`,
        ['expressions', name],
        { key: true },
      );
  }
}

/** The path from `start` back to itself, when the names it reads lead there. */
function circleFrom(start: string, reads: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const seen = new Set<string>();
  const visit = (name: string, path: string[]): string[] | undefined => {
    for (const next of reads.get(name) ?? []) {
      if (next === start) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = visit(next, [...path, next]);
      if (found) return found;
    }
    return undefined;
  };
  return visit(start, [start]);
}
