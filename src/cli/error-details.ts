import { printable } from '../errors/printable.js';
import { CallError } from '../http/errors.js';

/** What a failed call carries beyond its message (set by the runtime's failure report). */
interface Reported {
  readonly title?: string;
  readonly description?: string;
  readonly details?: string;
  readonly detailsFrom?: 'handler' | 'response';
  readonly bodyExcerpt?: string;
  readonly attempts: number;
}

/**
 * The lines printed under `restfn: error CODE: message` for a failed call: the handler's (or the
 * default) title and description, the handler's details, and what the service answered (already
 * masked and bounded by the runtime). Other errors have nothing to add.
 */
export function errorDetails(error: unknown): string[] {
  if (!(error instanceof CallError)) return [];
  const e = error as CallError & Reported;
  const lines: string[] = [];
  if (e.attempts > 1) lines.push(`attempts: ${e.attempts}`);
  if (e.title) lines.push(`title: ${e.title}`);
  if (e.description && e.description !== e.message) lines.push(`description: ${e.description}`);
  if (e.details !== undefined && e.detailsFrom === 'handler') lines.push(`details: ${e.details}`);
  if (e.bodyExcerpt !== undefined && e.bodyExcerpt !== '') {
    lines.push(`response body (credentials masked, 2 KB at most): ${e.bodyExcerpt}`);
  }
  return lines.map((line) => `  ${printable(line)}`);
}
