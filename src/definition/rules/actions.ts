import { COMPONENT_ID, componentType } from '../schema/index.js';
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
  const visit = (value: unknown, path: PropertyPath) => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) visit(v, [...path, i]);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const o = value as Record<string, unknown>;
    if (typeof o.componentId === 'string' && COMPONENT_ID.test(o.componentId) && !('type' in o)) {
      r.report(
        'DEPRECATED_KEY',
        `componentId is the older form of an action's type: write 'type: ${componentType(o.componentId)}' instead`,
        [...path, 'componentId'],
        { key: true },
      );
    }
    for (const [k, v] of Object.entries(o)) visit(v, [...path, k]);
  };
  visit(file.data, []);
}
