import type { ErrorCode } from '../errors/codes.js';
import { RestfnError } from '../errors/restfn-error.js';

/** `execute` named a function the solution does not have (exit code 2). */
export class FunctionNotFoundError extends RestfnError {
  constructor(name: string, suggestion: string) {
    super('FUNCTION_NOT_FOUND', `function '${name}' does not exist in this solution${suggestion}`);
  }
}

/** A parameter value is missing or cannot be coerced to its declared type; nothing was sent (exit code 2). */
export class ParameterError extends RestfnError {
  readonly parameter: string;
  /** Every required parameter without a value (PARAMETER_REQUIRED): what the caller must give. */
  readonly missing: readonly string[];

  constructor(
    code: 'PARAMETER_REQUIRED' | 'PARAMETER_TYPE' | 'PARAMETER_UNKNOWN',
    parameter: string,
    message: string,
    missing: readonly string[] = [],
  ) {
    super(code, message);
    this.parameter = parameter;
    this.missing = missing;
  }
}

/** A step that needs a part restfn has not wired in this runtime (for example the local store). */
export class UnsupportedStepError extends RestfnError {
  constructor(message: string) {
    super('UNSUPPORTED_STEP', message);
  }
}

/**
 * An action's command was refused by the service for good (a 4xx, or a handler without retry): the
 * local change stays, and the command waits in the queue as `failed` until retried or deleted.
 */
export class CommandFailedError extends RestfnError {
  constructor(
    message: string,
    /** The command, as `restfn queue retry|delete` takes it. */
    readonly commandId: string,
  ) {
    super('COMMAND_FAILED', message);
  }
}

/**
 * Paging ended before the service's data did: the continuation advanced nothing (PAGING_STALLED) or
 * the page cap came first (PAGE_LIMIT). A sync fails on it and keeps its tables, unless it was told
 * to keep what it has (`allowPartial`).
 */
export class PagingError extends RestfnError {
  constructor(
    code: 'PAGING_STALLED' | 'PAGE_LIMIT',
    message: string,
    /** Pages fetched and handed on before paging stopped. */
    readonly pages: number,
  ) {
    super(code, message);
  }
}

/**
 * An action ran, but one of its steps failed and the failure was reported rather than thrown (an
 * action of a list, a failure `onError` handled): the CLI's exit says so with that failure's code.
 */
export class ActionStepError extends RestfnError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
  }
}

/**
 * A datasource's function needs a parameter that the datasource gives from an input
 * (`@ctx.inputs.x`, `@ctx.jig.inputs.x`) its caller did not give (a screen opens it with them);
 * nothing was sent (exit code 2).
 */
export class InputRequiredError extends RestfnError {
  constructor(
    readonly datasource: string,
    readonly inputs: readonly string[],
    message: string,
  ) {
    super('INPUT_REQUIRED', message);
  }
}

/** Datasources read each other (`@ctx.datasources.<name>`) in a cycle: none of them can run first. */
export class DatasourceCycleError extends RestfnError {
  constructor(message: string) {
    super('DATASOURCE_CYCLE', message);
  }
}
