import { createHash } from 'node:crypto';
import { suggestFileName } from '../definition/naming.js';
import type { ImportedOperation } from './model.js';

/** The spec's longest functionId (2.1). */
export const MAX_NAME = 50;

/** A function name for an operation, and why it is not the plain one when it is not. */
export interface AssignedName {
  readonly name: string;
  /** Set when the name is not the operation's own: which rule made it, for the plan. */
  readonly because?: string;
}

/** `getPetById (GET /pet/{petId})`, or the route alone when it is the operation's only name. */
export function operationLabel(op: ImportedOperation): string {
  return op.id === op.route ? op.route : `${op.id} (${op.route})`;
}

/**
 * Function names for every operation of a description, each unique, within 50 characters,
 * deterministic, and stable across re-imports:
 * 1. an operation imported before (`previous`, by its label) keeps the name its file has;
 * 2. else its own name (operationId or request name; else method and path), when no other
 *    operation of the description would have it too;
 * 3. else, in turn, the first that no other operation has or would have: its tag or folder before
 *    its own name, its method and path, its own name with a hash of its route;
 * A name over 50 characters is cut, with a hash of the whole name after it. Accents are dropped
 * (`créer` -> `creer`).
 */
export function assignNames(
  operations: readonly ImportedOperation[],
  prefix: string,
  previous: ReadonlyMap<string, string> = new Map(),
): AssignedName[] {
  const make = (text: string) => {
    const base = suggestFileName(text);
    if (base === '') return undefined;
    return withinLimit(prefix === '' || base.startsWith(`${prefix}-`) ? base : `${prefix}-${base}`);
  };
  const own = operations.map(
    (op) => make(op.nameFrom) ?? make(op.nameFallback) ?? withinLimit(`${prefix}-operation`),
  );
  const kept = operations.map((op) => previous.get(operationLabel(op)));
  const counts = new Map<string, number>();
  for (const name of own) counts.set(name, (counts.get(name) ?? 0) + 1);
  // Names no other operation may take: those kept, and the own names of operations that have them alone.
  const keptNames = new Set<string>(kept.filter((n): n is string => n !== undefined));
  const taken = new Set<string>(keptNames);
  own.forEach((name, i) => {
    if (kept[i] === undefined && counts.get(name) === 1 && !taken.has(name)) taken.add(name);
  });
  return operations.map((op, i): AssignedName => {
    const keep = kept[i];
    if (keep !== undefined) return { name: keep };
    const name = own[i]!;
    if (counts.get(name) === 1 && taken.has(name) && !keptNames.has(name)) return { name };
    const others = operations
      .filter((_, j) => j !== i && own[j] === name)
      .map(operationLabel)
      .slice(0, 2)
      .join(', ');
    const clash = others ? `'${name}' is also ${others}` : `'${name}' is another operation's`;
    const tag = op.tags.at(-1);
    const candidates: Array<[string | undefined, string]> = [
      [tag === undefined ? undefined : make(`${tag} ${op.nameFrom}`), 'its tag or folder before it'],
      [make(op.nameFallback), 'its method and path'],
    ];
    for (const [candidate, how] of candidates) {
      if (candidate === undefined || taken.has(candidate) || counts.has(candidate)) continue;
      taken.add(candidate);
      return { name: candidate, because: `${clash}: named by ${how}` };
    }
    // Its route's hash; another operation with the very same route too (Postman allows it) counts on.
    for (let n = 0; ; n++) {
      const candidate = `${name.slice(0, MAX_NAME - 7).replace(/-+$/, '')}-${hash(`${op.route}\0${n === 0 ? '' : n}`)}`;
      if (taken.has(candidate)) continue;
      taken.add(candidate);
      return { name: candidate, because: `${clash}: named by a hash of its route` };
    }
  });
}

/** Within 50 characters: a longer name is cut at a word, with a hash of the whole name after it. */
function withinLimit(name: string): string {
  if (name.length <= MAX_NAME) return name;
  const cut = name.slice(0, MAX_NAME - 7).replace(/-[^-]*$/, '') || name.slice(0, MAX_NAME - 7);
  return `${cut.replace(/-+$/, '')}-${hash(name)}`;
}

/** Six hex digits of SHA-256: the same input gives the same name on every machine and run. */
function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 6);
}
