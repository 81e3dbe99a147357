import { KNOWN_TYPES } from '../../definition/rules/parameters.js';
import type { Solution } from '../../definition/solution.js';
import type { CompletionEntry } from './entry.js';
import { objectOr } from './plain-data.js';
import type { SolutionIndex } from './solution-index.js';
import { type Ancestor, siblings } from './yaml-position.js';

/** The keys under which a caller writes the parameters it passes to a function or an action. */
export const PASSED_PARAMETERS: ReadonlySet<string> = new Set(['parameters', 'functionParameters']);

/**
 * At a key under `parameters:`/`functionParameters:`, the parameters of what the block names beside
 * it (`function: X` or `action: X`): required ones first, the ones already written left out. A
 * function file's own `parameters:` (which declares them) names nothing beside it: nothing comes.
 */
export function parameterNames(
  lines: readonly string[],
  line: number,
  column: number,
  holder: Ancestor,
  solution: Solution,
  index: SolutionIndex,
): CompletionEntry[] {
  const beside = siblings(lines, holder.line, holder.column);
  const fn = beside.get('function');
  const action = beside.get('action');
  const declared = fn
    ? objectOr(solution.functions.get(fn)?.data).parameters
    : action
      ? objectOr(index.actions.get(action)?.data).parameters
      : undefined;
  const written = siblings(lines, line, column);
  return Object.entries(objectOr(declared))
    .filter(([name]) => !written.has(name))
    .map(([name, p]) => {
      const d = objectOr(p);
      const required = d.required === true;
      const detail = [
        typeof d.type === 'string' ? d.type : 'string',
        d.location,
        required ? 'required' : 'optional',
      ]
        .filter((v): v is string => typeof v === 'string')
        .join(' · ');
      const documentation = [
        `Parameter of ${fn ? `function ${fn}` : `action ${action}`}.`,
        d.value !== undefined ? `Default: \`${JSON.stringify(d.value)}\`.` : undefined,
      ]
        .filter(Boolean)
        .join(' ');
      return {
        label: name,
        kind: 'parameter',
        detail,
        documentation,
        sortText: `${required ? 0 : 1}${name}`,
      };
    });
}

/**
 * A parameter's `type`: the types restfn checks values against (the parameter-type rule's list);
 * a credential kind is `secret` or `<provider>.oauth` (named in the documentation).
 */
export function parameterTypes(from: number): CompletionEntry[] {
  return KNOWN_TYPES.map((type) => ({
    label: type,
    kind: 'value',
    documentation:
      type === 'secret'
        ? 'A credential: `value` is the key of a stored credential. OAuth tokens: `<provider>.oauth`.'
        : 'Values are checked and converted to this type.',
    from,
  }));
}
