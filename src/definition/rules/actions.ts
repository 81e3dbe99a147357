import { TODO } from '../file-templates.js';
import { COMPONENT_ID, componentType, QUEUE_ACTION_TYPES } from '../schema/index.js';
import type { SourceFile } from '../solution.js';
import type { PropertyPath } from '../yaml-file.js';
import type { Reporter } from './reporter.js';

/**
 * The older `componentId: '@jigx/jd-<name>'` in place of `type: action.<name>`: it still runs (the
 * schema reads it as that type), and the warning shows the current form. Looked for in the file as
 * written, since the definition holds the type only.
 */
export function componentIds(file: SourceFile, r: Reporter): void {
  if (file.kind !== 'action') return;
  walk(file.data, [], (o, path) => {
    if (typeof o.componentId !== 'string' || !COMPONENT_ID.test(o.componentId) || 'type' in o) return;
    r.report(
      'DEPRECATED_KEY',
      `componentId is the older form of an action's type: write 'type: ${componentType(o.componentId)}' instead`,
      [...path, 'componentId'],
      { key: true },
    );
  });
}

/**
 * A queue action needs the command (or, for clear-queue, record) id: `id`, or the older
 * `commandId`. Looked for in the file as written: either name is optional to the schema.
 */
export function queueActionIds(file: SourceFile, r: Reporter): void {
  if (file.kind !== 'action') return;
  walk(file.data, [], (o, path) => {
    if (!(QUEUE_ACTION_TYPES as readonly unknown[]).includes(o.type)) return;
    const options = o.options;
    if (typeof options !== 'object' || options === null || 'id' in options || 'commandId' in options) return;
    r.report(
      'MISSING_KEY',
      `missing required key 'id' in options; add it (the command's id, the id of its row in the {entity}_error table, for example =@ctx.current.item.id${o.type === 'action.clear-queue' ? ", or a record's id" : ''})`,
      [...path, 'options'],
    );
  });
}

/**
 * `<TODO>`, the value `restfn new` leaves where only the author knows what to give (a path
 * parameter of an action's function that is not the record's id): as written it would be sent.
 */
export function todoValues(file: SourceFile, r: Reporter): void {
  // `restfn new` leaves it, and so does the missing-parameter quick fix: the message says neither.
  const declared = declaredActionParameters(file) ?? [];
  walk(file.data, [], (o, path) => {
    for (const [key, value] of Object.entries(o)) {
      if (value !== TODO) continue;
      // In an action declaring a parameter of that name, the caller's value is the likely one.
      const example = declared.includes(key) ? `=@ctx.action.parameters.${key}` : `=@ctx.record.${key}`;
      r.report(
        'TODO_VALUE',
        `${key} is ${TODO}, a placeholder to fill in: give the value (a literal, or an expression such as ${example}), or remove the line if the function has a default for it`,
        [...path, key],
      );
    }
  });
}

/**
 * The parameters an action file declares (`action:` wrapped with `parameters:`), read there as
 * `@ctx.action.parameters.<name>`; undefined when the file declares none (any may be given then).
 */
export function declaredActionParameters(file: SourceFile): string[] | undefined {
  if (file.kind !== 'action') return undefined;
  const data = file.data as { action?: unknown; parameters?: unknown } | null | undefined;
  if (!data || typeof data !== 'object' || !('action' in data)) return undefined;
  const parameters = data.parameters;
  if (!parameters || typeof parameters !== 'object' || Array.isArray(parameters)) return undefined;
  return Object.keys(parameters);
}

/** Calls `visit` with every map in `value`, and its path. */
function walk(
  value: unknown,
  path: PropertyPath,
  visit: (o: Record<string, unknown>, path: PropertyPath) => void,
): void {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) walk(v, [...path, i], visit);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const o = value as Record<string, unknown>;
  visit(o, path);
  for (const [k, v] of Object.entries(o)) walk(v, [...path, k], visit);
}
