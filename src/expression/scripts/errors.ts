import { RestfnError } from '../../errors/restfn-error.js';

export type ScriptErrorCode =
  /** A module does not load (syntax error, import, bad file name). */
  | 'SCRIPT_LOAD'
  /** A script function threw. */
  | 'SCRIPT_ERROR'
  /** A script function ran past its time limit. */
  | 'SCRIPT_TIMEOUT'
  /** A script function needed more memory than its limit. */
  | 'SCRIPT_MEMORY'
  /** A script function returned something that is not a JSON value (a promise, a function). */
  | 'SCRIPT_RESULT';

/**
 * A solution's expression script failed: the author's code, not the engine. Where it happened in the
 * script is in the message (`utils.js:3:11`); the expression that called it is added by the caller.
 */
export class ScriptError extends RestfnError {
  constructor(code: ScriptErrorCode, message: string) {
    super(code, message);
  }
}
