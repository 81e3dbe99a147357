import type { ErrorCode } from '../errors/codes.js';
import { RestfnError } from '../errors/restfn-error.js';

/**
 * A description that cannot be imported as asked: unreadable, of a format or version restfn does not
 * read, with a `$ref` that leads nowhere, or one that would give clashing or invalid functions. The
 * message says where (file, operation, `$ref`) and how to fix it.
 */
export class ImportError extends RestfnError {
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
