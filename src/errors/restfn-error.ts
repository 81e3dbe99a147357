/**
 * Every failure restfn raises is a `RestfnError` with a stable `code`. Tests and interfaces match on
 * `code`, never on message text. Three families are kept apart on purpose:
 * - the author's definition or expression is wrong (`DefinitionError`, `ExpressionError`),
 * - the caller used restfn wrongly (`UsageError`),
 * - the engine itself failed (plain `RestfnError` with an `ENGINE_*` code).
 * The remote service answering with an error gets its own tree with the execution engine.
 */
export class RestfnError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Wrong command-line usage or API arguments (exit code 2). */
export class UsageError extends RestfnError {
  constructor(message: string, code = 'USAGE') {
    super(code, message);
  }
}
