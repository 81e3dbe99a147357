import * as z from 'zod';
import { didYouMean } from '../suggest.js';

/**
 * A strict object: unknown keys are errors. The error message for each unknown key carries its
 * "did you mean" suggestion, one line per key, in the order of `issue.keys`, so the reporter can
 * point at each key separately.
 */
export function strict<T extends z.ZodRawShape>(shape: T) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `unknown key '${key}'${didYouMean(key, known)}`).join('\n')
        : undefined,
  });
}

export const expression = z
  .string()
  .describe(
    'Expression: a string starting with "=", JSONata after it, reading the context through @ctx (or @.).',
  );

/** `when` conditions: an expression, or a constant boolean. */
export const condition = z
  .union([z.boolean(), expression])
  .describe('Condition: an expression ("=..."), or true/false.');

/** Always JSONata (`inputTransform`, `outputTransform`, `records`): the leading "=" is optional. */
export const jsonata = z.string().describe('JSONata expression; a leading "=" is optional.');

/** A text shown to people: one string, or a map of language code to text (picked by the user's locale). */
export const localizable = z
  .union([z.string(), z.record(z.string(), z.string())])
  .describe(
    'Text, or a map of language code to text (the user locale picks one; the first is the fallback).',
  );

/** Map of parameter name to a value or expression, as callers pass them. */
export const parameterValues = z
  .record(z.string(), z.unknown())
  .describe('Map of parameter name to a value or an expression ("=...").');
