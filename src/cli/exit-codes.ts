import { CommanderError } from 'commander';
import { SolutionNotFoundError } from '../definition/solution.js';
import { CredentialError } from '../errors/credential-error.js';
import { DefinitionError } from '../errors/definition-error.js';
import { UsageError } from '../errors/restfn-error.js';
import { ExpressionError } from '../expression/errors.js';
import { ScriptError } from '../expression/scripts/errors.js';
import { InvalidHeaderError, InvalidUrlError, InvalidUrlValueError } from '../http/build-request.js';
import { DatabaseError, QueryError, QueryNotReadOnlyError } from '../local/errors.js';
import { FunctionNotFoundError, ParameterError } from '../runtime/errors.js';
import { FileError, InternalError, InterruptedError } from './errors.js';
import { EXIT } from './exit-table.js';

export { EXIT } from './exit-table.js';

export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  if (
    error instanceof UsageError ||
    error instanceof SolutionNotFoundError ||
    error instanceof ParameterError ||
    // A header value the caller gave that HTTP cannot carry; names are caught by validation first.
    error instanceof InvalidHeaderError ||
    // A path or host value the caller gave that would move the request (`..`).
    error instanceof InvalidUrlValueError ||
    error instanceof FunctionNotFoundError ||
    error instanceof QueryNotReadOnlyError ||
    error instanceof DatabaseError ||
    error instanceof FileError
  ) {
    return EXIT.USAGE;
  }
  if (
    error instanceof DefinitionError ||
    error instanceof ExpressionError ||
    error instanceof ScriptError ||
    error instanceof InvalidUrlError ||
    error instanceof QueryError
  ) {
    return EXIT.INVALID_DEFINITION;
  }
  if (error instanceof CredentialError) return EXIT.CREDENTIALS;
  if (error instanceof InterruptedError) return EXIT.INTERRUPTED;
  if (error instanceof InternalError) return EXIT.INTERNAL;
  return EXIT.FUNCTION_FAILED;
}
