import type { PropertyPath } from '../../definition/yaml-file.js';
import type { ExpressionError } from '../../expression/errors.js';
import { randomUUID } from '../../portable/random.js';
import { createContext, type ExecutionContext } from '../context.js';
import { datasourceReader } from '../datasource-reader.js';
import { fieldsOf } from '../field.js';
import type { Scope } from './types.js';

/** Evaluates a step's values, at paths relative to the step, against one context. */
export interface Evaluator {
  readonly ctx: ExecutionContext;
  field(path: PropertyPath, raw: unknown): Promise<unknown>;
  fail(path: PropertyPath, message: string): ExpressionError;
}

/**
 * A fresh `@ctx` for a step written at `at` in the scope's file (the expression's `$` is `@ctx` too).
 * `@ctx.datasources.<name>` is read when a value first names it, once per step: a later step of a
 * list reads what an earlier one synced.
 */
export function evaluator(scope: Scope, at: PropertyPath): Evaluator {
  const { engine, file, context } = scope;
  const ctx = createContext(engine.solution, randomUUID(), engine.options, context);
  const datasources: Record<string, unknown> = { ...(context.datasources as object | undefined) };
  ctx.datasources = datasources;
  const read = datasourceReader(engine, context);
  const fields = fieldsOf(file, ctx, engine.expressions);
  return {
    ctx,
    field: async (path, raw) => {
      await read(raw, datasources);
      return fields([...at, ...path], raw, ctx);
    },
    fail: (path, message) => fields.fail([...at, ...path], message),
  };
}

/** A map of values and expressions, each evaluated. */
export async function values(
  raw: Readonly<Record<string, unknown>> | undefined,
  path: PropertyPath,
  ev: Evaluator,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw ?? {})) out[key] = await ev.field([...path, key], value);
  return out;
}

export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
