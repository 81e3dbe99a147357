import type { ErrorCode } from './codes.js';

/**
 * Every failure restfn raises is a `RestfnError` with a stable `code`. Tests and interfaces match on
 * `code`, never on message text. Three families are kept apart on purpose:
 * - the author's definition or expression is wrong (`DefinitionError`, `ExpressionError`),
 * - the caller used restfn wrongly (`UsageError`),
 * - the call to the remote service failed (`CallError` and its kinds, in http/errors.ts).
 * Anything else that escapes is a bug in restfn (the CLI prints it with RESTFN_DEBUG=1).
 */
export class RestfnError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Wrong command-line usage or API arguments (exit code 2). */
export class UsageError extends RestfnError {
  constructor(message: string, code: ErrorCode = 'USAGE') {
    super(code, message);
  }
}
