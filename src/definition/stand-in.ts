import type { z } from 'zod';
import { type FunctionDefinition, SCHEMAS } from './schema/index.js';
import { valueAt } from './schema-issues.js';
import { closest } from './suggest.js';
import type { PropertyPath } from './yaml-file.js';

/** Rounds of fixing: each fixes every issue the last parse found; a few cover nested ones. */
const ROUNDS = 4;

/**
 * A function file that failed the schema still gets the semantic rules (a url without a scheme is
 * worth saying in the same run as `method: get`), run over a stand-in: the file's data with each
 * schema problem mended the way its message suggests. A value with a close allowed one (`get`,
 * `qery`) takes it; an unknown key is dropped. Any other problem (a missing key, a map where text
 * belongs) has no one likely mend, so there is no stand-in and the rules wait for the fix, as
 * findings built on a guess would mislead. The stand-in is never run, only checked.
 */
export function standInFunction(data: unknown): FunctionDefinition | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const copy = structuredClone(data) as Record<string, unknown>;
  for (let round = 0; round < ROUNDS; round++) {
    const result = (SCHEMAS.function as unknown as z.ZodType<FunctionDefinition>).safeParse(copy);
    if (result.success) return result.data;
    for (const issue of result.error.issues) if (!mend(copy, issue)) return undefined;
  }
  return undefined;
}

function mend(data: Record<string, unknown>, issue: z.core.$ZodIssue): boolean {
  const path = issue.path as PropertyPath;
  if (issue.code === 'unrecognized_keys') {
    const holder = valueAt(data, path);
    if (!holder || typeof holder !== 'object') return false;
    for (const key of issue.keys) delete (holder as Record<string, unknown>)[key];
    return true;
  }
  // A discriminated union's issue points at the discriminator, as a plain enum's at its value.
  const allowed =
    issue.code === 'invalid_value'
      ? issue.values.map(String)
      : issue.code === 'invalid_union' && 'discriminator' in issue && issue.discriminator
        ? ((issue as { options?: unknown[] }).options ?? []).map(String)
        : [];
  const parent = valueAt(data, path.slice(0, -1));
  const key = path.at(-1);
  const value = valueAt(data, path);
  if (typeof value !== 'string' || key === undefined || !parent || typeof parent !== 'object') return false;
  const match = closest(value, allowed);
  if (match === undefined) return false;
  (parent as Record<string | number, unknown>)[key] = match;
  return true;
}
