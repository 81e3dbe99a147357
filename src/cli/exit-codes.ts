import { CommanderError } from 'commander';
import { SolutionNotFoundError } from '../definition/solution.js';
import { CredentialError } from '../errors/credential-error.js';
import { DefinitionError } from '../errors/definition-error.js';
import { UsageError } from '../errors/restfn-error.js';
import { ExpressionError } from '../expression/errors.js';
import { ScriptError } from '../expression/scripts/errors.js';
import { InvalidHeaderError, InvalidUrlError } from '../http/build-request.js';
import { FunctionNotFoundError, ParameterError } from '../runtime/errors.js';

/** The documented exit codes, used by every command. Errors become exit codes here and only here. */
export const EXIT = {
  /** Success. */
  OK: 0,
  /** The function ran and ended in an error (remote error, network failure, timeout). */
  FUNCTION_FAILED: 1,
  /** Wrong usage: unknown option, bad argument, no solution found, file exists. */
  USAGE: 2,
  /** Invalid definitions: validation found errors, or an expression is broken. */
  INVALID_DEFINITION: 3,
  /** Missing or unusable credentials. */
  CREDENTIALS: 4,
} as const;

export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  if (
    error instanceof UsageError ||
    error instanceof SolutionNotFoundError ||
    error instanceof ParameterError ||
    // A header value the caller gave that HTTP cannot carry; names are caught by validation first.
    error instanceof InvalidHeaderError ||
    error instanceof FunctionNotFoundError
  ) {
    return EXIT.USAGE;
  }
  if (
    error instanceof DefinitionError ||
    error instanceof ExpressionError ||
    error instanceof ScriptError ||
    error instanceof InvalidUrlError
  ) {
    return EXIT.INVALID_DEFINITION;
  }
  if (error instanceof CredentialError) return EXIT.CREDENTIALS;
  return EXIT.FUNCTION_FAILED;
}
