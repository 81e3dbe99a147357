import type { PropertyPath } from '../definition/yaml-file.js';
import type { Conversion } from '../local/conversions.js';
import type { ExecutionContext } from './context.js';

/** A `conversions` value: a list, or an expression giving one. */
export async function conversionList(
  raw: string | readonly Conversion[],
  path: PropertyPath,
  field: (path: PropertyPath, raw: unknown, input: unknown) => Promise<unknown>,
  ctx: ExecutionContext,
): Promise<Conversion[]> {
  const value = typeof raw === 'string' ? await field(path, raw, ctx) : raw;
  return (Array.isArray(value) ? value : value ? [value] : []) as Conversion[];
}
